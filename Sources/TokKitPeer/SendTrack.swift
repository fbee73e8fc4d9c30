import TokKitRTP

/// The sending half of one media section: negotiated SSRC and payload type, the next sequence number, the counters
/// an SR reports, and a preallocated packet buffer the header and payload are written into. Guarded by its own lock
/// in ``PeerConnection``; used on the caller's media thread (and read by the RTCP timer for the counters). What
/// answers the peer's feedback about this stream lives in the feedback units (Feedback/).
struct SendTrack {
    static let capacity = 1500

    let kind: MediaKind
    let ssrc: UInt32
    let payloadType: UInt8
    var sequenceNumber = UInt16.random(in: 0...UInt16.max)
    var lastTimestamp: UInt32 = 0
    var packets: UInt64 = 0
    var payloadBytes: UInt64 = 0
    /// Video: keeps what we send and answers the peer's NACKs.
    var nackResponder: NACKResponder?
    /// Audio with redundancy negotiated: wraps every payload with the previous one (RFC 2198); the header then
    /// carries its `red` payload type.
    var redundancy: REDPacketizer?
    let buffer: UnsafeMutableRawBufferPointer
    /// The negotiated id of the transport-wide sequence number extension when this section carries it
    /// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2), and the header's extension list holding a
    /// placeholder for it, made once: each packet's number is written in place after the header.
    let transportSequenceID: UInt8?
    let extensions: [RTPHeaderExtension]
    /// Where that number's two bytes sit in every packet of this track (the header layout never changes: no
    /// CSRCs, this one element), found once by parsing a template header; nil when not stamped.
    let transportSequenceOffset: Int?

    init(kind: MediaKind, ssrc: UInt32, payloadType: UInt8, transportSequenceID: UInt8? = nil) {
        self.kind = kind
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.transportSequenceID = transportSequenceID
        let extensions = transportSequenceID.map { [RTPHeaderExtension(id: $0, value: [0, 0])] } ?? []
        self.extensions = extensions
        if let id = transportSequenceID {
            transportSequenceOffset = Self.valueOffset(id: id, header: RTPHeader(
                payloadType: payloadType, sequenceNumber: 0, timestamp: 0, ssrc: ssrc, extensions: extensions))
        } else {
            transportSequenceOffset = nil
        }
        buffer = .allocate(byteCount: Self.capacity + 64, alignment: 8)
        nackResponder = kind == .video ? NACKResponder(ssrc: ssrc) : nil
    }

    func deallocate() {
        buffer.deallocate()
        redundancy?.deallocate()
    }

    /// The offset of extension element `id`'s value in `header` once serialized (RFC 8285 §4.2), or nil.
    private static func valueOffset(id: UInt8, header: RTPHeader) -> Int? {
        var bytes = [UInt8](repeating: 0, count: header.serializedLength)
        return bytes.withUnsafeMutableBytes { raw -> Int? in
            guard (try? header.write(into: raw)) != nil,
                  let view = try? RTPPacketView(parsing: UnsafeRawBufferPointer(raw)),
                  let value = view.extensions.value(id: id), value.count == 2,
                  let start = value.baseAddress, let base = raw.baseAddress
            else { return nil }
            return start - UnsafeRawPointer(base)
        }
    }
}
