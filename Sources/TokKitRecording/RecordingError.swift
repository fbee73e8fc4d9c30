import CAVFormat

/// Why a recording call failed.
///
/// libav failures carry libav's own (negative, `AVERROR`) code and its text, so a log line says what went wrong
/// (`No such file or directory`, `No space left on device`, ...). Bad media (a frame going back in time, an empty
/// or oversized payload, a delta frame before the first key frame) is never an error: it is dropped and counted
/// (``WebMWriter/Counters``, ``RTPStreamRecorder/Counters``), so one bad packet cannot end a recording.
public enum RecordingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A libav call failed: `operation` names it, `code` is its negative `AVERROR` value, `message` its text.
    case libav(operation: String, code: Int32, message: String)
    /// The configuration cannot be written (no track, a size or channel count out of range...).
    case invalidConfiguration(String)
    /// A frame of a kind the file has no track for (video into an audio-only writer, or the reverse).
    case noSuchTrack(String)
    /// The writer was already closed.
    case closed

    /// Builds ``libav(operation:code:message:)`` from a libav return code, with the text of `av_strerror`.
    static func libav(_ operation: String, _ code: Int32) -> RecordingError {
        .libav(operation: operation, code: code, message: libavMessage(code))
    }

    /// libav's text for `code` (as `av_err2str`).
    public static func libavMessage(_ code: Int32) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { buffer in
            tokkit_av_error_text(code, buffer.baseAddress!, 128)
            return String(cString: buffer.baseAddress!)
        }
    }

    /// One line for logs: the operation, libav's text and code, or the reason.
    public var description: String {
        switch self {
        case let .libav(operation, code, message): "\(operation) failed: \(message) (\(code))"
        case let .invalidConfiguration(reason): "invalid recording configuration: \(reason)"
        case let .noSuchTrack(kind): "the file has no \(kind) track"
        case .closed: "the writer is closed"
        }
    }
}
