/// A STUN or TURN server as the server hands it to clients in `connected` (the shape of WebRTC's
/// `RTCIceServer`, so a browser passes the list to `RTCPeerConnection` as it is).
///
/// `urls` follow RFC 7064/7065 (`stun:host:port`, `turn:host:port?transport=udp|tcp`, `turns:host:port`).
/// For TURN, `username` and `credential` are time-limited credentials of the TURN REST API scheme
/// (username `expiry:connectionId`, credential base64(HMAC-SHA1(secret, username))), or static ones the
/// operator configured. Value type, `Sendable`.
public struct ICEServerInfo: Codable, Hashable, Sendable {
    public var urls: [String]
    public var username: String?
    public var credential: String?

    public init(urls: [String], username: String? = nil, credential: String? = nil) {
        self.urls = urls
        self.username = username
        self.credential = credential
    }

    /// Whether any of the URLs names a TURN server (`turn:` or `turns:`).
    public var isTURN: Bool {
        urls.contains { url in
            let scheme = url.prefix { $0 != ":" }.lowercased()
            return scheme == "turn" || scheme == "turns"
        }
    }
}
