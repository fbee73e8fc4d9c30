import CALSA

extension AudioDeviceError {
    /// Maps an alsa-lib failure of `operation` on the PCM `device` to the device error a caller can act on.
    ///
    /// - `ENOENT` (unknown PCM name, no device node) and `ENODEV` → ``noSuchDevice(_:)``
    /// - `EBUSY`, or `EAGAIN` from a non-blocking open → ``deviceBusy(_:)``
    /// - `EINVAL` while choosing the sample format, rate or channels (`format` given) → ``unsupportedFormat(_:)``
    /// - anything else → ``systemError(operation:code:message:)`` with the negative code alsa-lib returned
    init(_ error: ALSAErrno, operation: String, device: String, format: AudioFormat? = nil) {
        if error == .noEntry || error == .noDevice {
            self = .noSuchDevice(device)
        } else if error == .busy || (error == .wouldBlock && operation == "snd_pcm_open") {
            self = .deviceBusy(device)
        } else if error == .invalid, let format {
            self = .unsupportedFormat(format)
        } else {
            self = .systemError(operation: operation, code: -error.code, message: "\(device): \(error.description)")
        }
    }
}
