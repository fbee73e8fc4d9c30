#if canImport(Glibc)
import Glibc
#endif

/// Why a WAV file could not be read or written. TokKit reads and writes RIFF/WAVE with 16-bit PCM samples only.
/// A plain value (Sendable).
public enum WAVError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No file at that path.
    case fileNotFound(String)
    /// The file exists but may not be opened that way.
    case permissionDenied(String)
    /// The file does not start with `RIFF`…`WAVE`.
    case notWAV
    /// A required chunk (`fmt ` or `data`) is missing.
    case missingChunk(String)
    /// A chunk claims more bytes than the file has, or is too short for its kind.
    case malformedChunk(String)
    /// The samples are not integer PCM (`formatTag` 1, or extensible with the PCM sub-format), e.g. float or μ-law.
    case unsupportedEncoding(formatTag: UInt16)
    /// The samples are PCM but not 16-bit.
    case unsupportedBitsPerSample(Int)
    /// The header's numbers contradict each other or are zero (channels, rate, block alignment).
    case invalidFormat(String)
    /// The data would exceed the 4 GiB a RIFF size field can describe.
    case tooLarge
    /// A system call failed with `errno`.
    case systemError(operation: String, errno: Int32)

    /// Maps the `errno` of a failed `operation` on `path`.
    init(errno code: Int32, operation: String, path: String) {
        switch code {
        case ENOENT: self = .fileNotFound(path)
        case EACCES, EPERM: self = .permissionDenied(path)
        default: self = .systemError(operation: operation, errno: code)
        }
    }

    /// A short English message with the path and what is wrong.
    public var description: String {
        switch self {
        case let .fileNotFound(p): "no such file: \(p)"
        case let .permissionDenied(p): "permission denied: \(p)"
        case .notWAV: "not a RIFF/WAVE file"
        case let .missingChunk(c): "missing '\(c)' chunk"
        case let .malformedChunk(c): "malformed '\(c)' chunk"
        case let .unsupportedEncoding(tag): "unsupported WAV encoding \(tag) (only 16-bit PCM)"
        case let .unsupportedBitsPerSample(b): "unsupported \(b)-bit samples (only 16-bit PCM)"
        case let .invalidFormat(why): "invalid WAV format: \(why)"
        case .tooLarge: "WAV data larger than 4 GiB"
        case let .systemError(op, e): "\(op) failed: \(String(cString: strerror(e)))"
        }
    }
}
