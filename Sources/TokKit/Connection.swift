import struct FoundationEssentials.Date

/// One client's presence in a session, as the SDK's `OTConnection`: created when it connects, destroyed when
/// it leaves (or its reconnect grace period runs out).
///
/// A value snapshot, safe on any thread. Identify connections by ``connectionID``.
public struct Connection: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// Unique within the session, stable across a reconnect within the server's grace period.
    public let connectionID: ConnectionID
    /// When the server created the connection.
    public let creationTime: Date
    /// The `data` string that was embedded in the client's token (application metadata); may be empty.
    public let data: String

    /// ``connectionID``, for `Identifiable`.
    public var id: ConnectionID { connectionID }

    /// A connection as the server describes it; the session builds these, tests and custom negotiators may too.
    public init(connectionID: ConnectionID, creationTime: Date, data: String) {
        self.connectionID = connectionID
        self.creationTime = creationTime
        self.data = data
    }

    /// `Connection(id)`, with the token data when there is any.
    public var description: String { data.isEmpty ? "Connection(\(connectionID))" : "Connection(\(connectionID), data: \(data))" }
}
