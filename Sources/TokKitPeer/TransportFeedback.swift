import TokKitRTP

/// The receive side of transport-wide congestion control for one ``PeerConnection``, once negotiated
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01): the negotiated extension id, the recorder of arrival
/// times, a scratch buffer for the feedback messages and the counters. Guarded by its own lock in
/// ``PeerConnection``; recorded on the network thread per RTP packet (no allocation); messages are written on the
/// same thread, by the receive path when one is due and by a slower fallback timer.
struct TransportFeedback {
    /// Largest feedback message written (libwebrtc keeps them well under an MTU as well).
    static let maximumMessageLength = 1200
    /// Messages sent per timer tick at most; the rest waits for the next tick.
    static let maximumMessagesPerTick = 8

    let extensions: RTPHeaderExtensionMap
    let recorder: TransportFeedbackRecorder
    /// Where messages are written before SRTCP protection (64 bytes spare for its trailer).
    var scratch = [UInt8](repeating: 0, count: maximumMessageLength + 64)
    var messagesSent = 0
    /// When ``sendDue(senderSSRC:mediaSSRC:now:_:)`` last ran (monotonic nanoseconds).
    var lastSent: UInt64 = 0
    var messagesReceived = 0
    var packetsReportedToUs = 0
    var packetsReportedLostToUs = 0

    /// Nil when the recorder cannot be made (it cannot with the default capacity).
    init?(extensionID: UInt8) {
        guard let recorder = try? TransportFeedbackRecorder() else { return nil }
        self.recorder = recorder
        extensions = RTPHeaderExtensionMap(transportWideCC: extensionID)
    }

    /// Whether a feedback message is due at `now`: arrivals wait to be reported and `interval` nanoseconds have
    /// passed since the last ``sendDue(senderSSRC:mediaSSRC:now:_:)``.
    func isDue(now: UInt64, interval: UInt64) -> Bool {
        recorder.hasPendingFeedback && now &- lastSent >= interval
    }

    /// Writes every message due (at most ``maximumMessagesPerTick``) and hands each to `send` with its length.
    mutating func sendDue(senderSSRC: UInt32, mediaSSRC: UInt32, now: UInt64,
                          _ send: (UnsafeMutableRawBufferPointer, Int) -> Void) {
        lastSent = now
        var sent = 0
        scratch.withUnsafeMutableBytes { buffer in
            let body = UnsafeMutableRawBufferPointer(rebasing: buffer[..<Self.maximumMessageLength])
            while sent < Self.maximumMessagesPerTick, recorder.hasPendingFeedback {
                guard let length = try? recorder.writeFeedback(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC,
                                                               into: body)
                else { break }
                send(buffer, length)
                sent += 1
            }
        }
        messagesSent += sent
    }

    /// Counts a feedback message the peer sent about our packets.
    mutating func received(_ feedback: RTCPTransportWideFeedback) {
        messagesReceived += 1
        packetsReportedToUs += feedback.statuses.count
        packetsReportedLostToUs += feedback.statuses.lazy.filter { $0 == .notReceived }.count
    }

    var statistics: TransportFeedbackStatistics {
        TransportFeedbackStatistics(
            extensionID: extensions.transportWideCC, packetsRecorded: recorder.counters.recorded,
            feedbackSent: messagesSent, feedbackReceived: messagesReceived,
            packetsReportedByPeer: packetsReportedToUs, packetsReportedLostByPeer: packetsReportedLostToUs)
    }
}
