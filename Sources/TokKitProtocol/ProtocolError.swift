/// A protocol-level failure: an ``ErrorCode`` and a human-readable message.
///
/// The server turns it into an `error` message (WebSocket) or an error body (REST); clients use it for local
/// validation with the same codes. Value type, `Sendable`.
public struct ProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String

    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
