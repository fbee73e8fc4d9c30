/// The version of the WebSocket signaling protocol (Docs/Protocol.md). A client states it when connecting;
/// the server refuses versions it does not speak.
public enum ProtocolVersion {
    public static let current = 1
}
