/// Whether a peer's PLI or FIR makes a new key frame now. A pure value with injected times (any monotonic clock).
///
/// Two rules, both against a congested path's key frame storm:
/// - at most one answer per ``minimumInterval`` (libwebrtc's `EncoderRtcpFeedback` minimum key frame send interval);
/// - none while the last key frame is still in the send queue, nor for up to ``arrivalAllowance`` after its last
///   packet leaves the pacer (``keyframeQueued(at:leavingWithin:)``; as long as it took to leave, at most the
///   allowance: a key frame that leaves at once, on a fast path or before any estimate, holds nothing up). A receiver asks again every 250 ms while it waits
///   (Streaming.md, "Keyframes"); the requests it sent before the key frame's first packet reached it arrive while
///   that key frame is still on its way, and answering them sends another key frame into the same queue. Behind
///   network-bench's 500 kb/s drop-tail bottleneck each such key frame lost packets there, which asked for the next
///   (110-120 requests a minute, issue 14). A key frame that is lost in part after all is repaired by NACK, or
///   given up by the receiver after its repair wait (500 ms), and the request that follows is answered.
public struct PeerKeyframeRequestGate: Sendable, Hashable {
    /// The least time between two answered requests.
    public static let minimumInterval: Duration = .milliseconds(300)
    /// After a key frame's last packet left: the round trip assumed elsewhere (congestion control), in which a
    /// request sent before its packets arrived can still come in.
    public static let arrivalAllowance: Duration = .milliseconds(200)

    private var lastAnswered: Duration?
    private var busyUntil: Duration?
    /// Requests not answered so far.
    public private(set) var ignored = 0

    public init() {}

    /// A key frame went into the send queue at `now`; its last packet leaves the pacer within `leaves` (what waits
    /// before it and its own paced time).
    public mutating func keyframeQueued(at now: Duration, leavingWithin leaves: Duration) {
        let until = now + leaves + min(leaves, Self.arrivalAllowance)
        busyUntil = max(busyUntil ?? until, until)
    }

    /// Whether a request at `now` is answered with a key frame (then counted as the last answered). `ignoreBusy`: only
    /// the interval applies (a request deferred from earlier).
    public mutating func request(at now: Duration, ignoreBusy: Bool = false) -> Bool {
        if let last = lastAnswered, now - last < Self.minimumInterval {
            ignored += 1
            return false
        }
        if !ignoreBusy, let busy = busyUntil, now < busy {
            ignored += 1
            return false
        }
        lastAnswered = now
        return true
    }

    /// Whether a request at `now` would be answered, without counting it.
    public func wouldAnswer(at now: Duration, ignoreBusy: Bool = false) -> Bool {
        if let last = lastAnswered, now - last < Self.minimumInterval { return false }
        if !ignoreBusy, let busy = busyUntil, now < busy { return false }
        return true
    }
}
