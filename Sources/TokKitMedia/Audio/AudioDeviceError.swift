/// Why an audio device could not be used, or stopped.
public enum AudioDeviceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No PCM (or file) of that name.
    case noSuchDevice(String)
    /// Another process holds the device.
    case deviceBusy(String)
    /// The machine has no usable sound card. Publishing and subscribing still work with the null device.
    case noSoundCard
    /// The device does not support the format.
    case unsupportedFormat(AudioFormat)
    /// `start` was called before `initialize`.
    case notInitialized
    /// A WAV file is missing, unreadable or not 16-bit PCM.
    case invalidFile(path: String, reason: String)
    /// The device went away or failed unrecoverably while running.
    case deviceFailed(String)
    /// A system or alsa-lib call failed (`code` is the negative errno alsa-lib returned).
    case systemError(operation: String, code: Int32, message: String)

    /// A short English message naming the device, file or call that failed.
    public var description: String {
        switch self {
        case let .noSuchDevice(d): "no such audio device: \(d)"
        case let .deviceBusy(d): "audio device busy: \(d)"
        case .noSoundCard: "no sound card"
        case let .unsupportedFormat(f): "unsupported audio format: \(f)"
        case .notInitialized: "audio device not initialized"
        case let .invalidFile(p, r): "\(p): \(r)"
        case let .deviceFailed(d): "audio device failed: \(d)"
        case let .systemError(op, c, m): "\(op) failed (\(c)): \(m)"
        }
    }
}
