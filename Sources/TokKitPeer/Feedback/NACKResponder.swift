import TokKitRTP

/// Answers the peer's NACKs about our video (RFC 4585 §6.2.1): every packet sent is kept, unprotected, in a
/// 512-packet history, and a packet the peer asks for is sent again with its own sequence number (no RTX is
/// negotiated; libsrtp allows the repeated protection with `allow_repeat_tx`). It lives in the video ``SendTrack``,
/// under that section's lock, beside the packet buffer it keeps copies of.
///
/// While the path is congested (``pathCongested``: the send-side estimator saw more than 10 % loss in its last
/// window) one packet is not sent again within ``resendInterval`` of its last retransmission (libwebrtc's packet
/// history waits a round trip likewise): a receiver repeats its NACK until the packet arrives (TokKit's every
/// 20 ms), and behind a full queue of 100-200 ms each repetition sent the packet once more, unpaced, into the
/// queue that was dropping it (network-bench's bottleneck row: the estimate went to its floor without this, with
/// the audio's share of it left free). Otherwise every request is answered: under random loss a second copy 20 ms
/// after a lost one repairs the frame within the playout delay, where one a round trip later may come too late for
/// it (network-bench's loss row, one run each: with the rule always on up to 1.95 % frozen in a direction; with it
/// always on and the receiver's repeats a round trip apart, 1.5-2.03 % in four of eight; with it under congestion
/// only, 0.00 %). Whatever the path's state, retransmissions are held to its estimate (``pathEstimate``,
/// ``RetransmissionRateLimiter``); ``retransmissionsSuppressed`` counts what either rule held back.
struct NACKResponder: FeedbackUnit {
    /// Our video SSRC: NACKs about other streams are not ours.
    let ssrc: UInt32
    private let history: RTPSendHistory
    /// NACK messages about our stream.
    private(set) var nacksReceived = 0
    /// Packets sent again.
    private(set) var retransmissions: UInt64 = 0
    /// Requests not answered: for a packet sent again less than ``resendInterval`` before while the path was
    /// congested, or beyond the path's estimate.
    private(set) var retransmissionsSuppressed: UInt64 = 0
    /// The round trip to the peer, from its receiver reports (the connection sets it before each NACK); nil while
    /// unknown.
    var roundTripTime: Duration?
    /// Whether the path is congested now (the connection sets it before each NACK, from
    /// ``TransportCongestionControl/congested``; false without transport-wide feedback).
    var pathCongested = false
    /// The path's estimate (bits per second, audio and video: the connection sets it before each NACK, from
    /// ``TransportCongestionControl/estimate``; nil without transport-wide feedback): retransmissions are held to it
    /// (``RetransmissionRateLimiter``).
    var pathEstimate: Int?
    private var limiter = RetransmissionRateLimiter()
    /// The least time between two retransmissions of one packet when the round trip is shorter or unknown (the round
    /// trip libwebrtc's NACK module assumes while it has none). Receiver reports come once a second and may have
    /// been measured while the path's queue was empty: behind a bottleneck the round trip then read a few ms while
    /// a full queue made it 100-200 ms.
    static let minimumResendInterval: Duration = .milliseconds(100)
    /// The most a reported round trip holds a retransmission back (a peer's wrong DLSR must not stop repairs).
    static let maximumResendInterval: Duration = .seconds(1)
    /// The least time between two retransmissions of one packet: the round trip, within ``minimumResendInterval``
    /// ... ``maximumResendInterval``.
    var resendInterval: Duration {
        min(max(roundTripTime ?? .zero, Self.minimumResendInterval), Self.maximumResendInterval)
    }
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
        var suppressed: UInt64 = 0
        let history = history
        let congested = pathCongested
        let estimate = pathEstimate
        var limiter = limiter
        defer { self.limiter = limiter }
        let interval = UInt64(resendInterval.components.seconds) * 1_000_000_000
            + UInt64(resendInterval.components.attoseconds / 1_000_000_000)
        scratch.withUnsafeMutableBytes { buffer in
            for item in nack.items {
                // The packet id, then one more for each bit of the bitmask set (RFC 4585 §6.2.1).
                for bit in -1 ..< 16 where bit < 0 || item.lostBitmask & (1 << bit) != 0 {
                    let sequence = item.packetID &+ UInt16(bit + 1)
                    guard let packet = history.packet(sequenceNumber: sequence) else { continue }
                    if congested, let last = history.lastResent(sequenceNumber: sequence), now &- last < interval {
                        suppressed += 1
                        continue
                    }
                    guard limiter.allows(packet.count + TransportCongestionControl.wireOverhead, now: now,
                                         rate: estimate) else {
                        suppressed += 1
                        continue
                    }
                    buffer.copyMemory(from: packet)
                    if output.resendRTP(buffer, length: packet.count) {
                        sent += 1
                        history.markResent(sequenceNumber: sequence, at: now)
                    }
                }
            }
        }
        retransmissions += sent
        retransmissionsSuppressed += suppressed
    }
}
