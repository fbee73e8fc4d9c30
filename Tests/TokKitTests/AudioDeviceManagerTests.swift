#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import TokKit
import TokKitAudio

extension LiveServer {
/// The manager is process-wide state: these tests run one at a time, and not alongside the media tests (also
/// under ``LiveServer``), and put the default back.
@Suite struct AudioDeviceManagerTests {
    /// Publishers of earlier tests release the device asynchronously.
    init() async { _ = await MediaTestKit.currentDeviceIdle() }

    @Test func withoutASoundCardTheDefaultIsTheNullDevice() throws {
        var template = Array("/tmp/tokkit-cards-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        try #require(fd >= 0)
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(path) }
        let text = "--- no soundcards ---\n"
        #expect(write(fd, text, text.utf8.count) == text.utf8.count)
        close(fd)
        #expect(AudioDeviceManager.defaultAudioDevice(cardsFile: path) is NullAudioDevice)
        #expect(AudioDeviceManager.defaultAudioDevice(cardsFile: "/nonexistent/cards") is NullAudioDevice)
    }

    @Test func thisMachineWithoutSoundCardGetsTheNullDevice() throws {
        // The build machines have no sound card; where one is listed and opens, the default must be ALSA.
        let cardListed = SoundCardProbe.cardListed()
        let device = AudioDeviceManager.defaultAudioDevice()
        if cardListed && SoundCardProbe.isUsable() {
            #expect(device is ALSAAudioDevice)
        } else {
            #expect(device is NullAudioDevice)
        }
        // And a machine without a sound card can still "publish": the default device captures.
        try AudioDeviceManager.setAudioDevice(nil)
        let current = AudioDeviceManager.currentAudioDevice()
        #expect(current === AudioDeviceManager.currentAudioDevice())
        if !cardListed {
            try current.initializeCapture()
            try current.startCapture()
            #expect(current.isCapturing)
            current.stopCapture()
        }
    }

    @Test func replacingTheDeviceWhileInUseIsRefused() throws {
        let first = NullAudioDevice()
        try AudioDeviceManager.setAudioDevice(first)
        #expect(AudioDeviceManager.currentAudioDevice() === first)
        try first.initializeRendering()
        try first.startRendering()
        defer { first.stopRendering(); try? AudioDeviceManager.setAudioDevice(nil) }

        let second = NoiseAudioDevice()
        #expect(throws: AudioDeviceError.self) { try AudioDeviceManager.setAudioDevice(second) }
        #expect(throws: AudioDeviceError.self) { try AudioDeviceManager.setAudioDevice(nil) }
        #expect(AudioDeviceManager.currentAudioDevice() === first)
        try AudioDeviceManager.setAudioDevice(first)   // setting the same device again is harmless

        first.stopRendering()
        try AudioDeviceManager.setAudioDevice(second)   // initialized but stopped: may be replaced
        #expect(AudioDeviceManager.currentAudioDevice() === second)
    }

    @Test func busyErrorSaysWhy() throws {
        let device = NullAudioDevice()
        try AudioDeviceManager.setAudioDevice(device)
        try device.initializeCapture()
        try device.startCapture()
        defer { device.stopCapture(); try? AudioDeviceManager.setAudioDevice(nil) }
        #expect {
            try AudioDeviceManager.setAudioDevice(NullAudioDevice())
        } throws: { error in
            guard case let AudioDeviceError.deviceBusy(why) = error else { return false }
            return why.contains("in use")
        }
    }
}
}
