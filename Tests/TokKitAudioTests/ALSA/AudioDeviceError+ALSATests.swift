#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import TokKitAudio

@Suite struct AudioDeviceErrorALSATests {
    @Test func mapsALSACodesToTheCasesCallersActOn() {
        #expect(AudioDeviceError(ALSAErrno(returned: -ENOENT), operation: "snd_pcm_open", device: "hw:3")
                == .noSuchDevice("hw:3"))
        #expect(AudioDeviceError(ALSAErrno(returned: -ENODEV), operation: "snd_pcm_open", device: "hw:3")
                == .noSuchDevice("hw:3"))
        #expect(AudioDeviceError(ALSAErrno(returned: -EBUSY), operation: "snd_pcm_open", device: "hw:0")
                == .deviceBusy("hw:0"))
        #expect(AudioDeviceError(ALSAErrno(returned: -EAGAIN), operation: "snd_pcm_open", device: "dmix")
                == .deviceBusy("dmix"))
        #expect(AudioDeviceError(ALSAErrno(returned: -EINVAL), operation: "snd_pcm_hw_params_set_rate",
                                 device: "hw:0", format: .stereo) == .unsupportedFormat(.stereo))
        let io = AudioDeviceError(ALSAErrno(returned: -EIO), operation: "snd_pcm_prepare", device: "hw:0")
        guard case let .systemError(op, code, message) = io else {
            Issue.record("EIO mapped to \(io)")
            return
        }
        #expect(op == "snd_pcm_prepare" && code == -EIO && message.contains("hw:0"))
        // EAGAIN outside open and EINVAL without a format are not disguised as busy / unsupported.
        #expect(AudioDeviceError(ALSAErrno(returned: -EAGAIN), operation: "snd_pcm_readi", device: "x") != .deviceBusy("x"))
        #expect(AudioDeviceError(ALSAErrno(returned: -EINVAL), operation: "snd_pcm_sw_params", device: "x")
                != .unsupportedFormat(.voice))
    }

    @Test func errnoKeepsThePositiveCodeAndALSAMessage() {
        let e = ALSAErrno(returned: -EPIPE)
        #expect(e == .xrun && e.code == EPIPE)
        #expect(ALSAErrno(returned: Int(-EBUSY)) == .busy)
        #expect(e.description == "Broken pipe")
    }
}
