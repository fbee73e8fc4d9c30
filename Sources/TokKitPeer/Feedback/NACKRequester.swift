import TokKitRTP

/// Asks the peer for the video packets that did not arrive (RFC 4585 §6.2.1 generic NACK): a gap in the peer's
/// sequence numbers is NACKed at once, then again every 20 ms while it stays open, 10 times in all, then every
/// 100 ms, up to 14 requests (``NACKGenerator``'s defaults, over 580 ms): the late ones repair what a congested queue
/// dropped before the sender slowed down, while the frame still waits (``VP8FrameAssembler``'s 500 ms in the video
/// pipeline). Fed with the packets of the video section; polled by the RTCP timer so that requests are repeated
/// while no packet arrives.
struct NACKRequester: FeedbackUnit {
    /// The SSRC our NACKs are sent from.
    let senderSSRC: UInt32
    /// The peer's video SSRC, from its first packet.
    private(set) var mediaSSRC: UInt32?
    private let generator: NACKGenerator
    /// NACK messages sent.
    private(set) var messagesSent = 0
    /// Where messages are written before SRTCP protection: a full list and 64 spare bytes.
    private var scratch = [UInt8](repeating: 0, count: 1500)

    /// Nil when the generator cannot be made (it cannot with the default configuration).
    init?(senderSSRC: UInt32, configuration: NACKGenerator.Configuration = .init()) {
        guard let generator = try? NACKGenerator(configuration) else { return nil }
        self.senderSSRC = senderSSRC
        self.generator = generator
    }

    /// Sequence numbers missing now.
    var missingCount: Int { generator.missingCount }

    mutating func received<Output: FeedbackOutput>(_ packet: ReceivedRTP, section: MediaKind?, now: UInt64,
                                                   output: inout Output) {
        guard section == .video else { return }
        if mediaSSRC == nil { mediaSSRC = packet.ssrc }
        generator.observe(packet.sequenceNumber, now: now)
        if generator.missingCount > 0 { sendDue(now: now, output: &output) }
    }

    mutating func poll<Output: FeedbackOutput>(now: UInt64, output: inout Output) {
        sendDue(now: now, output: &output)
    }

    /// Writes one NACK for every sequence number due now; nothing when none is. Allocates nothing.
    private mutating func sendDue<Output: FeedbackOutput>(now: UInt64, output: inout Output) {
        guard generator.missingCount > 0, let mediaSSRC else { return }
        let due = generator.pending(now: now)
        guard !due.isEmpty else { return }
        let sender = senderSSRC
        let sent = scratch.withUnsafeMutableBytes { buffer -> Bool in
            let body = UnsafeMutableRawBufferPointer(rebasing: buffer[..<(buffer.count - 64)])
            guard let length = try? RTCPGenericNACK.write(senderSSRC: sender, mediaSSRC: mediaSSRC,
                                                           lostSequenceNumbers: due, into: body)
            else { return false }
            output.sendRTCP(buffer, length: length)
            return true
        }
        if sent { messagesSent += 1 }
    }
}
