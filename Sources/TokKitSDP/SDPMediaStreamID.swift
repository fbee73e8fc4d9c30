/// The media stream an m= section's track belongs to, `a=msid:<stream id> [<track id>]` (RFC 8830 §2).
public struct SDPMediaStreamID: Hashable, Sendable {
    public var streamID: String
    public var trackID: String?

    public init(streamID: String, trackID: String? = nil) {
        self.streamID = streamID
        self.trackID = trackID
    }

    init?(sdp value: Substring) {
        let f = value.fields
        guard (1 ... 2).contains(f.count), f.allSatisfy({ isVisible($0) && $0.utf8.count <= 64 }) else { return nil }
        self.init(streamID: String(f[0]), trackID: f.count == 2 ? String(f[1]) : nil)
    }

    var sdp: String { streamID + (trackID.map { " \($0)" } ?? "") }
}
