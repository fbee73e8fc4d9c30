import TokKitRTP

/// One feedback unit of a ``PeerConnection``, in the way pion's interceptors are: it watches the RTP and RTCP the
/// peer sends and a timer, and answers through a ``FeedbackOutput``. NACK requests and retransmission, SR/RR,
/// transport-wide CC on both sides and keyframe requests are each one such unit (retransmission's ``NACKResponder``
/// is shaped alike, but answers a NACK with a rate limiter the connection lends it, so it does not conform). The two
/// that also act on our outgoing packets (``NACKResponder`` keeps them, ``TransportCongestionControl`` numbers them)
/// are called from the send path directly, under the send section's lock that guards the packet's bytes.
///
/// A unit is a value-type state machine: every input carries `now` (monotonic nanoseconds from the connection's
/// ``PeerClock``); it reads no clock, takes no lock and does no I/O, so it is tested alone with a manual clock and
/// a recording output. The connection keeps each unit under its own lock and calls the inputs the unit cares
/// about; every input has a default that does nothing. Units allocate nothing per packet once made.
protocol FeedbackUnit {
    /// An RTP packet from the peer, decrypted; `section` is the one it was accepted on (nil: no section wants it).
    mutating func received<Output: FeedbackOutput>(_ packet: ReceivedRTP, section: MediaKind?, now: UInt64,
                                                   output: inout Output)
    /// An RTCP packet from the peer (one of a compound), other than transport-wide feedback.
    mutating func received<Output: FeedbackOutput>(_ packet: RTCPPacket, now: UInt64, output: inout Output)
    /// The peer's transport-wide feedback about our packets (decoded into a reused value: many arrive a second).
    mutating func received<Output: FeedbackOutput>(_ feedback: RTCPTransportWideFeedback, now: UInt64,
                                                   output: inout Output)
    /// The connection's timer (every RTCP interval, and whenever the unit says it is due): send what is owed.
    mutating func poll<Output: FeedbackOutput>(now: UInt64, output: inout Output)
}

extension FeedbackUnit {
    mutating func received<Output: FeedbackOutput>(_ packet: ReceivedRTP, section: MediaKind?, now: UInt64,
                                                   output: inout Output) {}
    mutating func received<Output: FeedbackOutput>(_ packet: RTCPPacket, now: UInt64, output: inout Output) {}
    mutating func received<Output: FeedbackOutput>(_ feedback: RTCPTransportWideFeedback, now: UInt64,
                                                   output: inout Output) {}
    mutating func poll<Output: FeedbackOutput>(now: UInt64, output: inout Output) {}
}

/// Where a ``FeedbackUnit`` sends what it writes and tells the media pipeline what it learnt. The connection's
/// output protects and sends on its DTLS-SRTP transport and hands notifications to the sections' feedback handlers
/// once the unit's lock is released; a test's output records.
protocol FeedbackOutput {
    /// Sends the RTCP packet of `length` bytes at the start of `buffer` (which has 64 spare bytes after the
    /// packet, for SRTCP's trailer). Returns whether it went out.
    @discardableResult
    mutating func sendRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) -> Bool
    /// Sends an RTP packet of ours again (a NACK asked for it): `length` bytes at the start of `buffer` (64 spare
    /// bytes after). Returns whether it went out.
    mutating func resendRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) -> Bool
    /// Tells the `section`'s media pipeline about feedback on our stream.
    mutating func notify(_ section: MediaKind, _ feedback: RTCPFeedback)
}

/// What feedback units need of a received RTP packet (the header fields; the payload stays with the section's
/// handler).
struct ReceivedRTP: Sendable, Hashable {
    var ssrc: UInt32
    var sequenceNumber: UInt16
    var timestamp: UInt32
    var payloadLength: Int
    /// The transport-wide sequence number, when transport-cc is negotiated and the packet carries it.
    var transportSequenceNumber: UInt16?

    init(ssrc: UInt32, sequenceNumber: UInt16, timestamp: UInt32 = 0, payloadLength: Int = 0,
         transportSequenceNumber: UInt16? = nil) {
        self.ssrc = ssrc
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.payloadLength = payloadLength
        self.transportSequenceNumber = transportSequenceNumber
    }

    init(_ view: RTPPacketView) {
        self.init(ssrc: view.ssrc, sequenceNumber: view.sequenceNumber, timestamp: view.timestamp,
                  payloadLength: view.payloadLength)
    }
}
