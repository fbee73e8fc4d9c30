/// URIs of the RTP header extensions TokKit understands, as they appear in `a=extmap` (RFC 8285 §5).
public enum RTPHeaderExtensionURI {
    /// RFC 8843 §15.2: the MID of the m= section a packet belongs to (value: the mid as UTF-8).
    public static let mid = "urn:ietf:params:rtp-hdrext:sdes:mid"
    /// WebRTC abs-send-time: 24-bit 6.18 fixed-point seconds (kept raw).
    public static let absoluteSendTime = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
    /// draft-holmer-rmcat-transport-wide-cc-extensions-01: 16-bit transport-wide sequence number (kept raw).
    public static let transportWideCC = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
}

/// The local identifiers negotiated for the extensions TokKit reads, from the `a=extmap` lines of an m= section.
///
/// Plain data; `nil` means "not negotiated". Lookups allocate nothing.
public struct RTPHeaderExtensionMap: Hashable, Sendable {
    public var mid: UInt8?
    public var absoluteSendTime: UInt8?
    public var transportWideCC: UInt8?

    public init(mid: UInt8? = nil, absoluteSendTime: UInt8? = nil, transportWideCC: UInt8? = nil) {
        self.mid = mid
        self.absoluteSendTime = absoluteSendTime
        self.transportWideCC = transportWideCC
    }

    /// Builds the map from `(id, uri)` pairs; unknown URIs are ignored.
    public init(extmaps: some Sequence<(id: UInt8, uri: String)>) {
        self.init()
        for (id, uri) in extmaps {
            switch uri {
            case RTPHeaderExtensionURI.mid: mid = id
            case RTPHeaderExtensionURI.absoluteSendTime: absoluteSendTime = id
            case RTPHeaderExtensionURI.transportWideCC: transportWideCC = id
            default: continue
            }
        }
    }
}

extension RTPPacketView {
    /// The MID carried in the packet, if the mid extension was negotiated and is present (RFC 8843 §15.2).
    /// Allocates a `String`; compare ``midBytes(_:)`` with stored UTF-8 to route packets without allocating.
    public func mid(_ map: RTPHeaderExtensionMap) -> String? {
        midBytes(map).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The raw bytes of the mid extension, if present.
    public func midBytes(_ map: RTPHeaderExtensionMap) -> UnsafeRawBufferPointer? {
        map.mid.flatMap { extensions.value(id: $0) }
    }

    /// The raw 24-bit abs-send-time value, if present with its 3 bytes.
    public func absoluteSendTime(_ map: RTPHeaderExtensionMap) -> UInt32? {
        guard let id = map.absoluteSendTime, let v = extensions.value(id: id), v.count == 3 else { return nil }
        return v.u24(0)
    }

    /// The raw transport-wide sequence number, if present with its 2 bytes.
    public func transportWideSequenceNumber(_ map: RTPHeaderExtensionMap) -> UInt16? {
        guard let id = map.transportWideCC, let v = extensions.value(id: id), v.count == 2 else { return nil }
        return v.u16(0)
    }
}
