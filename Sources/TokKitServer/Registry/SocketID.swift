/// Identifies one accepted WebSocket for the lifetime of the server (never reused).
struct SocketID: Hashable, Sendable {
    let value: UInt64
}
