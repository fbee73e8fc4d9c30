/// The Janus instance a server's routed sessions use (Docs/Routing.md): its WebSocket API URL and the secrets
/// it wants. With none configured (``ServerConfiguration/janus`` nil), routed sessions behave like relayed ones.
///
/// Value type, `Sendable`; in the JSON config file as `"janus": {"url", "apiSecret"?, "adminKey"?,
/// "requestTimeoutMs"?}`.
public struct RoutedMediaConfiguration: Sendable, Hashable, Codable {
    /// Janus's WebSocket transport, `ws://host:port` (subprotocol `janus-protocol`).
    public var url: String
    /// Janus's `api_secret`, sent with every request, or nil when it has none.
    public var apiSecret: String?
    /// The VideoRoom plugin's `admin_key`, needed to create rooms when the plugin has one.
    public var adminKey: String?
    /// Each Janus request's deadline, in milliseconds (the connect deadline too).
    public var requestTimeoutMs: Int

    /// An instance at `url` with its secrets; requests bounded by `requestTimeoutMs` (5 s by default).
    public init(url: String, apiSecret: String? = nil, adminKey: String? = nil, requestTimeoutMs: Int = 5_000) {
        self.url = url
        self.apiSecret = apiSecret
        self.adminKey = adminKey
        self.requestTimeoutMs = requestTimeoutMs
    }
}
