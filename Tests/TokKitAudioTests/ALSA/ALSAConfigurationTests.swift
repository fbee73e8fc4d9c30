import Testing
@testable import TokKitAudio

@Suite struct ALSAConfigurationTests {
    @Test func invalidTextIsATypedError() {
        #expect {
            _ = try ALSAConfiguration("pcm.broken { type null ")
        } throws: { error in
            guard case let AudioDeviceError.systemError(operation, code, _) = error else { return false }
            return operation == "snd_config_load" && code < 0
        }
    }

    @Test func definesOnlyItsOwnNames() throws {
        let config = try ALSAConfiguration("pcm.quiet { type null }")
        #expect(config.text.contains("quiet"))
        _ = try ALSAPCM(name: "quiet", direction: .playback, configuration: config)
        _ = try ALSAPCM(name: "quiet", direction: .capture, configuration: config)
        #expect(throws: AudioDeviceError.noSuchDevice("default")) {
            _ = try ALSAPCM(name: "default", direction: .playback, configuration: config)
        }
    }
}
