@testable import TokKitPeer
import TokKitRTP

/// A ``FeedbackOutput`` that keeps what a unit sends and says, for unit tests without a transport.
struct RecordingOutput: FeedbackOutput {
    /// RTCP packets sent, each parsed as a compound (a unit writes one packet or one compound at a time).
    var rtcp: [[RTCPPacket]] = []
    /// RTP packets sent again.
    var resent: [[UInt8]] = []
    var notifications: [Notification] = []
    /// Whether sends succeed.
    var succeeds = true

    struct Notification: Hashable {
        let section: MediaKind
        let feedback: RTCPFeedback
    }

    mutating func sendRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) -> Bool {
        let packets = (try? RTCPCompoundPacket(parsing: UnsafeRawBufferPointer(rebasing: buffer[..<length])))?.packets
        rtcp.append(packets ?? [])
        return succeeds
    }

    mutating func resendRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) -> Bool {
        resent.append(Array(buffer[..<length]))
        return succeeds
    }

    mutating func notify(_ section: MediaKind, _ feedback: RTCPFeedback) {
        notifications.append(Notification(section: section, feedback: feedback))
    }

    /// The sequence numbers of every NACK sent, one list per message.
    var nackedSequenceNumbers: [[UInt16]] {
        rtcp.flatMap { $0 }.compactMap { packet in
            guard case .genericNACK(let nack) = packet else { return nil }
            return nack.items.flatMap(\.sequenceNumbers)
        }
    }
}

/// Milliseconds as the units' monotonic nanoseconds (from 1 s: 0 reads as "never" in some counters).
func ms(_ milliseconds: UInt64) -> UInt64 { 1_000_000_000 + milliseconds * 1_000_000 }
