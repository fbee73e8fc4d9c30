/// One packet of a compound RTCP packet, decoded by type (RFC 3550 §6.4-6.6, RFC 4585 §6, RFC 5104 §4.3.1, REMB).
///
/// Transport-wide CC feedback is decoded too (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1).
/// Application-layer feedback other than REMB, APP and XR packets arrive as ``raw``.
public enum RTCPPacket: Hashable, Sendable {
    case senderReport(RTCPSenderReport)
    case receiverReport(RTCPReceiverReport)
    case sourceDescription(RTCPSourceDescription)
    case goodbye(RTCPGoodbye)
    case pictureLossIndication(RTCPPictureLossIndication)
    case genericNACK(RTCPGenericNACK)
    case fullIntraRequest(RTCPFullIntraRequest)
    case receiverEstimatedMaximumBitrate(RTCPReceiverEstimatedMaximumBitrate)
    case transportWideFeedback(RTCPTransportWideFeedback)
    case raw(RTCPRawPacket)

    /// Decodes the packet at the start of `bytes` (its header says how long it is).
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        let header = try RTCPHeader(parsing: bytes)
        switch (header.packetType, header.count) {
        case (RTCPPacketType.senderReport, _): self = .senderReport(try .init(parsing: bytes))
        case (RTCPPacketType.receiverReport, _): self = .receiverReport(try .init(parsing: bytes))
        case (RTCPPacketType.sourceDescription, _): self = .sourceDescription(try .init(parsing: bytes))
        case (RTCPPacketType.goodbye, _): self = .goodbye(try .init(parsing: bytes))
        case (RTCPPacketType.transportFeedback, RTCPGenericNACK.format): self = .genericNACK(try .init(parsing: bytes))
        case (RTCPPacketType.transportFeedback, RTCPTransportWideFeedback.format):
            self = .transportWideFeedback(try .init(parsing: bytes))
        case (RTCPPacketType.payloadFeedback, RTCPPictureLossIndication.format):
            self = .pictureLossIndication(try .init(parsing: bytes))
        case (RTCPPacketType.payloadFeedback, RTCPFullIntraRequest.format):
            self = .fullIntraRequest(try .init(parsing: bytes))
        case (RTCPPacketType.payloadFeedback, RTCPReceiverEstimatedMaximumBitrate.format):
            do throws(RTPError) {
                self = .receiverEstimatedMaximumBitrate(try .init(parsing: bytes))
            } catch .unknownApplicationFeedback {
                self = .raw(try .init(parsing: bytes))
            }
        default: self = .raw(try .init(parsing: bytes))
        }
    }

    /// The decoded packet as the common protocol, for length and serialization.
    public var packet: any RTCPPacketProtocol {
        switch self {
        case let .senderReport(p): p
        case let .receiverReport(p): p
        case let .sourceDescription(p): p
        case let .goodbye(p): p
        case let .pictureLossIndication(p): p
        case let .genericNACK(p): p
        case let .fullIntraRequest(p): p
        case let .receiverEstimatedMaximumBitrate(p): p
        case let .transportWideFeedback(p): p
        case let .raw(p): p
        }
    }

    /// Whether a regular (non reduced-size) compound packet may start with this packet (RFC 3550 §6.1).
    public var isReport: Bool {
        switch self {
        case .senderReport, .receiverReport: true
        default: false
        }
    }
}
