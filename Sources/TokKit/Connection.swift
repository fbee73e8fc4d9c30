import struct FoundationEssentials.Date

/// One client's presence in a session, as the SDK's `OTConnection`: created when it connects, destroyed when
/// it leaves (or its reconnect grace period runs out).
///
/// A value snapshot, safe on any thread. Identify connections by ``connectionID``.
public struct Connection: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// Unique within the session, stable across a reconnect within the server's grace period.
    public let connectionID: String
    /// When the server created the connection.
    public let creationTime: Date
    /// The `data` string that was embedded in the client's token (application metadata); may be empty.
    public let data: String

    public var id: String { connectionID }

    public init(connectionID: String, creationTime: Date, data: String) {
        self.connectionID = connectionID
        self.creationTime = creationTime
        self.data = data
    }

    public var description: String { data.isEmpty ? "Connection(\(connectionID))" : "Connection(\(connectionID), data: \(data))" }
}
