/// One Janus instance a server's routed sessions may use (Docs/Routing.md): its WebSocket API URL and the secrets
/// it wants. A server has a list of them (``ServerConfiguration/janus``); with none, routed sessions behave like
/// relayed ones.
///
/// Value type, `Sendable`; in the JSON config file as `"janus": {"url", "apiSecret"?, "adminKey"?,
/// "requestTimeoutMs"?}` (one instance) or an array of such objects (``decodeList(from:forKey:)``).
public struct RoutedMediaConfiguration: Sendable, Hashable, Codable {
    /// Janus's WebSocket transport, `ws://host:port` (subprotocol `janus-protocol`).
    public var url: String
    /// Janus's `api_secret`, sent with every request, or nil when it has none.
    public var apiSecret: String?
    /// The VideoRoom plugin's `admin_key`, needed to create rooms when the plugin has one.
    public var adminKey: String?
    /// Each Janus request's deadline, in milliseconds (the connect deadline too).
    public var requestTimeoutMs: Int

    /// Most instances one server may be given (``ServerConfiguration/validate()``).
    public static let maxInstances = 64

    /// An instance at `url` with its secrets; requests bounded by `requestTimeoutMs` (5 s by default).
    public init(url: String, apiSecret: String? = nil, adminKey: String? = nil, requestTimeoutMs: Int = 5_000) {
        self.url = url
        self.apiSecret = apiSecret
        self.adminKey = adminKey
        self.requestTimeoutMs = requestTimeoutMs
    }

    private enum CodingKeys: String, CodingKey {
        case url, apiSecret, adminKey, requestTimeoutMs
    }

    /// Decodes one instance; `requestTimeoutMs` may be left out (5 s).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(url: try c.decode(String.self, forKey: .url),
                  apiSecret: try c.decodeIfPresent(String.self, forKey: .apiSecret),
                  adminKey: try c.decodeIfPresent(String.self, forKey: .adminKey),
                  requestTimeoutMs: try c.decodeIfPresent(Int.self, forKey: .requestTimeoutMs) ?? 5_000)
    }

    /// The instances under `key`: an array of instance objects, or one object (the form of a server that had a
    /// single instance); nil when `key` is absent. Anything else is a decoding error.
    public static func decodeList<Key: CodingKey>(from container: KeyedDecodingContainer<Key>, forKey key: Key)
        throws -> [RoutedMediaConfiguration]? {
        guard container.contains(key) else { return nil }
        if let list = try? container.decode([RoutedMediaConfiguration].self, forKey: key) { return list }
        return [try container.decode(RoutedMediaConfiguration.self, forKey: key)]
    }

    /// The instances named on a command line (`tokkit-server --janus URL`, repeatable), in order, each with the
    /// shared `apiSecret` and `adminKey` (instances with secrets of their own go in the JSON config file).
    public static func list(urls: [String], apiSecret: String?, adminKey: String?) -> [RoutedMediaConfiguration] {
        urls.map { RoutedMediaConfiguration(url: $0, apiSecret: apiSecret, adminKey: adminKey) }
    }
}
