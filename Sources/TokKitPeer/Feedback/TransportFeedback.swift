import TokKitRTP

/// The receive side of transport-wide congestion control (draft-holmer-rmcat-transport-wide-cc-extensions-01):
/// the arrival time of every packet from the peer that carries the transport-wide sequence number is recorded (no
/// allocation), and feedback messages report them about every interval, so that the peer's bandwidth estimator
/// (Chromium's, or ours) can work. Also counts the peer's feedback about our packets.
///
/// The connection polls it from the receive path as soon as a message is due (``isDue(now:)``: the network thread
/// is awake for that packet anyway) and from a slower fallback timer when packets stop coming.
struct TransportFeedback: FeedbackUnit {
    /// Largest feedback message written (libwebrtc keeps them well under an MTU as well).
    static let maximumMessageLength = 1200
    /// Messages sent per poll at most; the rest waits for the next.
    static let maximumMessagesPerPoll = 8

    let extensions: RTPHeaderExtensionMap
    let recorder: TransportFeedbackRecorder
    /// The SSRC our messages are sent from.
    let senderSSRC: UInt32
    /// The least time between two polls that send, in nanoseconds.
    let interval: UInt64
    /// The media SSRC our messages name: the peer's first stream received, as Chromium does (a message covers the
    /// whole transport).
    private(set) var mediaSSRC: UInt32 = 0
    /// Where messages are written before SRTCP protection (64 bytes spare for its trailer).
    private var scratch = [UInt8](repeating: 0, count: maximumMessageLength + 64)
    private(set) var messagesSent = 0
    /// When a poll last sent (monotonic nanoseconds).
    private(set) var lastSent: UInt64 = 0
    private(set) var messagesReceived = 0
    private(set) var packetsReportedToUs = 0
    private(set) var packetsReportedLostToUs = 0

    /// Nil when the recorder cannot be made (it cannot with the default capacity).
    init?(extensionID: UInt8, senderSSRC: UInt32, interval: Duration) {
        guard let recorder = try? TransportFeedbackRecorder() else { return nil }
        self.recorder = recorder
        self.senderSSRC = senderSSRC
        self.interval = UInt64(min(max(interval / .nanoseconds(1), 0), 1e18))
        extensions = RTPHeaderExtensionMap(transportWideCC: extensionID)
    }

    /// Whether a message is due at `now`: arrivals wait to be reported and the interval has passed since the last.
    func isDue(now: UInt64) -> Bool {
        recorder.hasPendingFeedback && now &- lastSent >= interval
    }

    mutating func received<Output: FeedbackOutput>(_ packet: ReceivedRTP, section: MediaKind?, now: UInt64,
                                                   output: inout Output) {
        if mediaSSRC == 0, section != nil { mediaSSRC = packet.ssrc }
        guard let sequence = packet.transportSequenceNumber else { return }
        recorder.record(sequence, arrivalNanoseconds: now)
    }

    /// Counts a feedback message the peer sent about our packets.
    mutating func received<Output: FeedbackOutput>(_ feedback: RTCPTransportWideFeedback, now: UInt64,
                                                   output: inout Output) {
        messagesReceived += 1
        packetsReportedToUs += feedback.statuses.count
        packetsReportedLostToUs += feedback.statuses.lazy.filter { $0 == .notReceived }.count
    }

    /// Sends every message due (at most ``maximumMessagesPerPoll``), unless the interval has not passed.
    mutating func poll<Output: FeedbackOutput>(now: UInt64, output: inout Output) {
        guard isDue(now: now) else { return }
        lastSent = now
        var sent = 0
        let (recorder, sender, media) = (recorder, senderSSRC, mediaSSRC)
        scratch.withUnsafeMutableBytes { buffer in
            let body = UnsafeMutableRawBufferPointer(rebasing: buffer[..<Self.maximumMessageLength])
            while sent < Self.maximumMessagesPerPoll, recorder.hasPendingFeedback {
                guard let length = try? recorder.writeFeedback(senderSSRC: sender, mediaSSRC: media, into: body)
                else { break }
                output.sendRTCP(buffer, length: length)
                sent += 1
            }
        }
        messagesSent += sent
    }

    var statistics: TransportFeedbackStatistics {
        TransportFeedbackStatistics(
            extensionID: extensions.transportWideCC, packetsRecorded: recorder.counters.recorded,
            feedbackSent: messagesSent, feedbackReceived: messagesReceived,
            packetsReportedByPeer: packetsReportedToUs, packetsReportedLostByPeer: packetsReportedLostToUs)
    }
}
