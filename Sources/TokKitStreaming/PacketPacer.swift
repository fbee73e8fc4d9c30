/// Spreads a frame's packets over time at a pacing rate instead of sending them in one burst (WebRTC's pacer, in
/// its simplest form: a leaky bucket on the sending thread). The rate it is given is the path's: the lowest
/// bandwidth estimate over the peers (the encode stage sends unpaced until there is one).
///
/// A key frame is many times the size of the frames around it; sent at once it overflows the queue of any
/// bottleneck on the path, and the retransmissions of what was lost go the same way. The pacer lets the packets of
/// ``burst`` through together and spaces the rest at the rate, so a link that carries the average rate sees at
/// most the rate times the pacing factor. The rate is raised for a frame that would otherwise take longer than
/// ``maximumFrameSpan`` (a low rate must not hold a key frame for seconds).
///
/// A pure value with injected times (any monotonic clock); owned by one thread. Allocation-free.
public struct PacketPacer: Sendable {
    /// The send rate over the encoder's target rate (libwebrtc's default pacing factor).
    public static let pacingFactor = 2.5
    /// The factor while a bottleneck's queue drains (``VideoSendPipeline/drainSpan``): a key frame sent at
    /// ``pacingFactor`` into a queue still full from before the cut refilled it, and a packet of the frame after it
    /// was lost (network-bench's bottleneck row, traced). The bottleneck delivers the key frame no sooner either way.
    public static let drainingFactor = 1.0
    /// Packets within this much time at the rate go out together (an idle pacer's credit, too).
    public static let burst: Duration = .milliseconds(5)
    /// The longest a frame's packets are spread over.
    public static let maximumFrameSpan: Duration = .milliseconds(250)
    /// Bytes a packet carries on the wire beside its payload: RTP header with extensions (~24), SRTP tag (10), UDP
    /// and IPv4 headers (28).
    public static let packetOverhead = 62

    /// Bits per second packets are spaced at.
    public private(set) var rate: Int
    /// When what was sent so far has left at the rate.
    private var nextFree: Duration?

    /// A pacer at `pacingFactor` times `targetBitrate`.
    public init(targetBitrate: Int) {
        rate = Self.rate(for: targetBitrate)
    }

    /// A frame of `bytes` starts, the encoder aiming at `targetBitrate`: the rate is `factor` times that,
    /// raised for this frame if it would otherwise take longer than ``maximumFrameSpan``. Returns the rate.
    @discardableResult
    public mutating func beginFrame(bytes: Int, targetBitrate: Int, factor: Double = pacingFactor) -> Int {
        rate = Self.frameRate(bytes: bytes, targetBitrate: targetBitrate, factor: factor)
        return rate
    }

    /// The rate a frame of `bytes` is sent at for an encoder aiming at `targetBitrate`
    /// (``beginFrame(bytes:targetBitrate:factor:)``): `factor` times the target, raised so the frame takes at most
    /// ``maximumFrameSpan``.
    public static func frameRate(bytes: Int, targetBitrate: Int, factor: Double = pacingFactor) -> Int {
        let floor = Int((Double(bytes * 8) / (maximumFrameSpan / .seconds(1))).rounded(.up))
        return max(rate(for: targetBitrate, factor: factor), floor)
    }

    /// How long to wait before sending a packet of `bytes` at `now` (zero: send now); books its time on the link.
    public mutating func delay(sending bytes: Int, at now: Duration) -> Duration {
        let earliest = now - Self.burst  // idle time gives one burst of credit, no more
        let start = max(nextFree ?? earliest, earliest)
        nextFree = start + Self.transmission(bytes, at: rate)
        return start > now ? start - now : .zero
    }

    static func rate(for target: Int, factor: Double = pacingFactor) -> Int {
        max(Int(Double(max(target, 1)) * factor), 50_000)
    }

    static func transmission(_ bytes: Int, at rate: Int) -> Duration {
        .nanoseconds(Int64(bytes) * 8 * 1_000_000_000 / Int64(max(rate, 1)))
    }
}
