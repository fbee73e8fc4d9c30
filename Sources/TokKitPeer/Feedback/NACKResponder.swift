import TokKitRTP

/// Answers the peer's NACKs about our video (RFC 4585 §6.2.1): every packet sent is kept, unprotected, in a
/// 512-packet history, and a packet the peer asks for is sent again with its own sequence number (no RTX is
/// negotiated; libsrtp allows the repeated protection with `allow_repeat_tx`). It lives in the video ``SendTrack``,
/// under that section's lock, beside the packet buffer it keeps copies of.
struct NACKResponder: FeedbackUnit {
    /// Our video SSRC: NACKs about other streams are not ours.
    let ssrc: UInt32
    private let history: RTPSendHistory
    /// NACK messages about our stream.
    private(set) var nacksReceived = 0
    /// Packets sent again.
    private(set) var retransmissions: UInt64 = 0
    /// Where a packet is copied to be sent again (SRTP protects in place and appends its tag).
    private var scratch: [UInt8]

    /// Nil when the history cannot be made (it cannot with these sizes).
    init?(ssrc: UInt32, capacity: Int = 512, maximumPacketSize: Int = SendTrack.capacity) {
        guard let history = try? RTPSendHistory(capacity: capacity, maximumPacketSize: maximumPacketSize)
        else { return nil }
        self.ssrc = ssrc
        self.history = history
        scratch = [UInt8](repeating: 0, count: maximumPacketSize + 64)
    }

    /// Keeps a packet of our video as sent (called by the send path, under the video section's lock).
    func store(_ packet: UnsafeRawBufferPointer) {
        try? history.store(packet)
    }

    mutating func received<Output: FeedbackOutput>(_ packet: RTCPPacket, now: UInt64, output: inout Output) {
        guard case .genericNACK(let nack) = packet, nack.mediaSSRC == ssrc else { return }
        nacksReceived += 1
        var sent: UInt64 = 0
        let history = history
        scratch.withUnsafeMutableBytes { buffer in
            for item in nack.items {
                // The packet id, then one more for each bit of the bitmask set (RFC 4585 §6.2.1).
                for bit in -1 ..< 16 where bit < 0 || item.lostBitmask & (1 << bit) != 0 {
                    guard let packet = history.packet(sequenceNumber: item.packetID &+ UInt16(bit + 1)) else { continue }
                    buffer.copyMemory(from: packet)
                    if output.resendRTP(buffer, length: packet.count) { sent += 1 }
                }
            }
        }
        retransmissions += sent
    }
}
