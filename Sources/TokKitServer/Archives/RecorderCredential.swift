/// The credential the server's archive recorder shows in its signaling WebSocket upgrade (a header field and its
/// secret value), with which its connections do not count against the per-address connection limits.
///
/// A secret: its description, debug description and mirror show the field name only, so that interpolating or
/// dumping a value that holds one (an ``ArchiveRecordingRequest``) does not print it. Read ``value`` only to send it.
public struct RecorderCredential: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The request header field it goes in.
    public let field: String
    /// The secret value. Never log it.
    public let value: String

    /// A credential sent in header field `field`.
    public init(field: String, value: String) {
        self.field = field
        self.value = value
    }

    /// The header fields to send: `field: value`.
    public var headerFields: [String: String] { [field: value] }

    public var description: String { "RecorderCredential(\(field): <redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["field": field], displayStyle: .struct) }
}
