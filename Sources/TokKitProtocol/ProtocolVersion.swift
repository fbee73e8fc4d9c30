/// The version of the WebSocket signaling protocol (Docs/Protocol.md). A client states it in its `connect` message;
/// the server refuses versions it does not speak with ``ErrorCode/incompatibleVersion``.
///
/// Changes within a version are additive only: new optional fields and new message types. Receivers ignore fields
/// they do not know; clients ignore server message types they do not know.
public enum ProtocolVersion {
    /// The version this build speaks.
    public static let current = 1
    /// Every version this build's server accepts.
    public static let supported: ClosedRange<Int> = 1...1
}
