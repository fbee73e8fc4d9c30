/// A client's connection to a session as every participant sees it (OpenTok's `OTConnection`).
///
/// `creationTime` is in milliseconds since the Unix epoch; `data` is the token's connection data (possibly empty).
public struct ConnectionInfo: Codable, Hashable, Sendable {
    public var id: String
    public var creationTime: Int64
    public var data: String

    public init(id: String, creationTime: Int64, data: String) {
        self.id = id
        self.creationTime = creationTime
        self.data = data
    }
}
