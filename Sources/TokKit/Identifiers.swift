/// An identifier the session server assigned: an opaque string, typed so that one kind of identifier cannot be
/// passed where another is expected (a ``StreamID`` where a ``ConnectionID`` belongs).
///
/// Conforming types are thin wrappers over their ``rawValue``: they compare, hash, encode and print as that string,
/// and a string literal makes one (`let id: StreamID = "…"`). Build one from a string received elsewhere (your
/// server, a log) with `init(_:)`.
public protocol OpaqueIdentifier: RawRepresentable<String>, Hashable, Comparable, Sendable, Codable,
    CustomStringConvertible, ExpressibleByStringLiteral
{
    /// The identifier as the server wrote it.
    var rawValue: String { get }
    /// Wraps an identifier received as a string. Any string is accepted: the server decides what is valid.
    init(_ rawValue: String)
}

extension OpaqueIdentifier {
    /// Wraps `rawValue`; never fails.
    public init(rawValue: String) { self.init(rawValue) }
    /// Wraps the literal.
    public init(stringLiteral value: String) { self.init(value) }
    /// The raw identifier, unchanged.
    public var description: String { rawValue }
    /// Orders by the raw strings, so that sorted output is stable.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Names a session (the SDK's `sessionId`), as the server's session REST call returned it.
public struct SessionID: OpaqueIdentifier {
    /// The identifier as the server wrote it.
    public let rawValue: String
    /// Wraps a session identifier received as a string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// Names one client's connection to a session (``Connection/connectionID``).
public struct ConnectionID: OpaqueIdentifier {
    /// The identifier as the server wrote it.
    public let rawValue: String
    /// Wraps a connection identifier received as a string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// Names a published stream within its session (``SessionStream/streamID``).
public struct StreamID: OpaqueIdentifier {
    /// The identifier as the server wrote it.
    public let rawValue: String
    /// Wraps a stream identifier received as a string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// Names one subscription of one subscriber to one stream, as the server assigned it (``Subscriber/subscriberID``).
public struct SubscriberID: OpaqueIdentifier {
    /// The identifier as the server wrote it.
    public let rawValue: String
    /// Wraps a subscription identifier received as a string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// Names an archive (a recording of the session), as in the archive events.
public struct ArchiveID: OpaqueIdentifier {
    /// The identifier as the server wrote it.
    public let rawValue: String
    /// Wraps an archive identifier received as a string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}
