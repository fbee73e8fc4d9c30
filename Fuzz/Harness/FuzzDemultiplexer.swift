import TokKitRTP

/// Fuzz entry for RFC 7983 demultiplexing: classifies `data` and hands RTP and RTCP to their parsers, as a
/// transport's receive path does.
public func fuzzDemultiplexer(_ data: UnsafeRawBufferPointer) {
    switch MultiplexedPacketKind(classifying: data) {
    case .rtp:
        precondition(data.count >= 2 && (128 ... 191).contains(data[0]) && !(192 ... 223).contains(data[1]))
        fuzzRTP(data)
    case .rtcp:
        precondition(data.count >= 2 && (192 ... 223).contains(data[1]))
        fuzzRTCP(data)
    case .stun: precondition((0 ... 3).contains(data[0]))
    case .zrtp: precondition((16 ... 19).contains(data[0]))
    case .dtls: precondition((20 ... 63).contains(data[0]))
    case .turnChannel: precondition((64 ... 79).contains(data[0]))
    case .unknown: break
    }
}
