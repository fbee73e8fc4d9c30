/// How a session's media flows: `relayed` (peer to peer, the server only signals) or `routed` (through a media
/// router; reserved, treated like relayed until the router exists).
public enum MediaMode: String, Codable, Sendable, CaseIterable {
    case relayed
    case routed
}
