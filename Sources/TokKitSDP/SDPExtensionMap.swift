/// A negotiated RTP header extension, `a=extmap:<id>[/<direction>] <URI> [<attributes>]` (RFC 8285 §8).
///
/// Ids 1-14 fit the one-byte header form, 15-255 need the two-byte form (RFC 8285 §4.1).
public struct SDPExtensionMap: Hashable, Sendable {
    public var id: UInt8
    public var direction: SDPDirection?
    public var uri: String
    public var attributes: String?

    public init(id: UInt8, uri: String, direction: SDPDirection? = nil, attributes: String? = nil) {
        self.id = id
        self.uri = uri
        self.direction = direction
        self.attributes = attributes
    }

    /// The mid extension (RFC 8843 §15.2).
    public static let midURI = "urn:ietf:params:rtp-hdrext:sdes:mid"
    /// The transport-wide sequence number (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2).
    public static let transportWideCCURI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"

    init?(sdp value: Substring) {
        let f = value.fields
        guard f.count >= 2, isVisible(f[1]) else { return nil }
        let idAndDirection = f[0].split(separator: "/", omittingEmptySubsequences: false)
        guard (1 ... 2).contains(idAndDirection.count), let id = UInt8(idAndDirection[0]), id != 0 else { return nil }
        var direction: SDPDirection? = nil
        if idAndDirection.count == 2 {
            guard let d = SDPDirection(rawValue: String(idAndDirection[1])) else { return nil }
            direction = d
        }
        self.init(id: id, uri: String(f[1]), direction: direction,
                  attributes: f.count > 2 ? f.dropFirst(2).joined(separator: " ") : nil)
    }

    var sdp: String {
        "\(id)" + (direction.map { "/\($0.rawValue)" } ?? "") + " \(uri)" + (attributes.map { " \($0)" } ?? "")
    }
}
