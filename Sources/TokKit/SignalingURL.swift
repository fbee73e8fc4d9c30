import struct FoundationEssentials.URL

/// Turns the server address an application gives a ``Session`` into the signaling WebSocket URL:
/// `http://host:port` → `ws://host:port/signaling`, `https://…` → `wss://…/signaling`; a `ws`/`wss` URL with a path
/// is used as is. Pure function.
enum SignalingURL {
    static func make(from server: URL) throws(SessionError) -> String {
        try make(from: server.absoluteString)
    }

    static func make(from server: String) throws(SessionError) -> String {
        let schemes = [("http://", "ws://"), ("https://", "wss://"), ("ws://", "ws://"), ("wss://", "wss://")]
        guard let (prefix, replacement) = schemes.first(where: { server.lowercased().hasPrefix($0.0) }) else {
            throw .invalidParameter("server URL must start with http://, https://, ws:// or wss://: \(server)")
        }
        let rest = server.dropFirst(prefix.count)
        guard let host = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first,
            !host.isEmpty
        else { throw .invalidParameter("server URL has no host: \(server)") }
        let path = rest.dropFirst(host.count)
        let hasPath = !path.isEmpty && path != "/"
        return replacement + host + (hasPath ? String(path) : "/signaling")
    }
}
