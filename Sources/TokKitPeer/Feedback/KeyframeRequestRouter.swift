import TokKitRTP

/// Routes the peer's feedback about our streams to the section it names, and writes our keyframe requests:
/// a PLI (RFC 4585 §6.3.1) or a new FIR (RFC 5104 §4.3.1: a repeat carries the same command sequence number and is
/// dropped) about one of our SSRCs becomes ``RTCPFeedback/pictureLoss`` or ``RTCPFeedback/fullIntraRequest`` for
/// that section; a REMB covering our video becomes ``RTCPFeedback/receiverEstimatedMaximumBitrate(_:)``.
/// ``requestKeyframe(mediaSSRC:output:)`` sends a PLI about the peer's video.
struct KeyframeRequestRouter: FeedbackUnit {
    /// One of our sending sections.
    struct Section {
        let ssrc: UInt32
        /// Command sequence number of the last FIR acted on.
        var lastFullIntraRequest: UInt8?
        var requestsReceived = 0
    }

    /// The SSRC our PLIs are sent from.
    let senderSSRC: UInt32
    private(set) var audio: Section?
    private(set) var video: Section?
    /// PLIs sent.
    private(set) var requestsSent = 0
    /// Where a PLI is written before SRTCP protection (12 bytes, and 64 spare).
    private var scratch = [UInt8](repeating: 0, count: 12 + 64)

    init(senderSSRC: UInt32) { self.senderSSRC = senderSSRC }

    /// We send `ssrc` on `section`.
    mutating func addSender(_ section: MediaKind, ssrc: UInt32) {
        if section == .audio { audio = Section(ssrc: ssrc) } else { video = Section(ssrc: ssrc) }
    }

    /// Simulcast: our smaller video layers' SSRCs; a PLI or FIR about one of them is one about our video (the
    /// section's handler makes a keyframe on every layer).
    private(set) var videoLayers: [UInt32] = []

    /// We also send the smaller simulcast video layers `ssrcs`.
    mutating func addVideoLayers(_ ssrcs: [UInt32]) { videoLayers = ssrcs }

    /// Keyframe requests received about our stream on `section`.
    func requestsReceived(_ section: MediaKind) -> Int {
        (section == .audio ? audio : video)?.requestsReceived ?? 0
    }

    mutating func received<Output: FeedbackOutput>(_ packet: RTCPPacket, now: UInt64, output: inout Output) {
        switch packet {
        case .pictureLossIndication(let pli):
            route(ssrc: pli.mediaSSRC, .pictureLoss, firSequence: nil, output: &output)
        case .fullIntraRequest(let fir):
            for entry in fir.entries {
                route(ssrc: entry.ssrc, .fullIntraRequest, firSequence: entry.sequenceNumber, output: &output)
            }
        case .receiverEstimatedMaximumBitrate(let remb):
            if let ours = video?.ssrc,
               remb.ssrcs.isEmpty || remb.ssrcs.contains(ours) || remb.ssrcs.contains(where: videoLayers.contains) {
                output.notify(.video, .receiverEstimatedMaximumBitrate(remb.bitrate))
            }
        default:
            break
        }
    }

    /// Sends a PLI about the peer's video stream `mediaSSRC`. Allocates nothing.
    mutating func requestKeyframe<Output: FeedbackOutput>(mediaSSRC: UInt32, output: inout Output) {
        let pli = RTCPPictureLossIndication(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC)
        let sent = scratch.withUnsafeMutableBytes { buffer -> Bool in
            guard let length = try? pli.write(into: buffer) else { return false }
            return output.sendRTCP(buffer, length: length)
        }
        if sent { requestsSent += 1 }
    }

    private mutating func route<Output: FeedbackOutput>(ssrc: UInt32, _ feedback: RTCPFeedback, firSequence: UInt8?,
                                                        output: inout Output) {
        for section in MediaKind.allCases {
            guard var s = section == .audio ? audio : video,
                  s.ssrc == ssrc || (section == .video && videoLayers.contains(ssrc)) else { continue }
            if let firSequence {
                if s.lastFullIntraRequest == firSequence { continue }
                s.lastFullIntraRequest = firSequence
            }
            s.requestsReceived += 1
            if section == .audio { audio = s } else { video = s }
            output.notify(section, feedback)
        }
    }
}
