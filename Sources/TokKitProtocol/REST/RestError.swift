/// Body of every REST error response: the protocol ``ErrorCode`` and a message. The HTTP status is 400 (bad input),
/// 401 (missing or invalid credentials), 403 (role not allowed), 404 (unknown session, connection or stream) or
/// 413 (signal data too long).
public struct RestError: Codable, Hashable, Sendable {
    public var code: ErrorCode
    public var message: String
    public init(code: ErrorCode, message: String) {
        self.code = code
        self.message = message
    }
    public init(_ error: ProtocolError) {
        self.init(code: error.code, message: error.message)
    }
}
