/// Spreads a frame's packets over time at a pacing rate instead of sending them in one burst (WebRTC's pacer, in
/// its simplest form: a leaky bucket on the sending thread). The rate it is given is the path's: the lowest
/// bandwidth estimate over the peers (the encode stage sends unpaced until there is one).
///
/// A key frame is many times the size of the frames around it; sent at once it overflows the queue of any
/// bottleneck on the path, and the retransmissions of what was lost go the same way. The pacer lets the packets of
/// ``burst`` through together and spaces the rest at the rate, so a link that carries the average rate sees at
/// most the rate times the pacing factor.
///
/// The pacing factor alone does not protect a bottleneck's queue from a key frame: at 2.5 × the estimate E into a
/// link carrying E, b bits leave b × (1 − 1 / 2.5) queued there. So a frame too large for that (``frameRate(bytes:
/// targetBitrate:)`` under the factor: more than ~100 ms at E) opens a window in which the pacer books every packet
/// on a virtual link of rate E and sends at the pacing factor only while that link holds less than
/// ``queueAllowance`` (a leaky bucket of that depth at E); past it, packets leave at E. The window lasts until the
/// virtual link has carried the large frame and holds less than the allowance again: the delta frames queued behind
/// it go at E too, instead of following it at 2.5 × onto a link still holding its excess. The virtual link's rate
/// is E, or 1.25 × what was sent outside windows when that is more (``sentRate``): an encoder overshooting a low
/// estimate (textured 640x480 at ~300 kb/s under a 220 kb/s target) must drain it, or the window never ends.
/// Outside windows nothing but the factor applies: a budget at E for every frame (tried 2026-11-28) held such an
/// encoder to E, the send queue grew, the frame dropper skipped 1500 frames a minute and 1.9 a second arrived. Before 2026-11-28 a key frame went at 2.5 × E or faster (raised to leave
/// within 250 ms): behind network-bench's 500 kb/s drop-tail `tbf` (a queue of ~100 ms) every textured 640x480 key
/// frame (15-30 kB whatever the target) lost packets there, their retransmissions were lost too, and the receiver
/// asked for another key frame: 110-120 requests a minute once the estimate stayed near the cap (Streaming.md,
/// "Drop-tail bottlenecks"). Both rates are raised when a frame would otherwise take longer than
/// ``maximumFrameSpan`` (a low estimate must not hold a key frame for seconds; libwebrtc's pacer drains its queue
/// within 2 s the same way).
///
/// A pure value with injected times (any monotonic clock); owned by one thread. Allocation-free.
public struct PacketPacer: Sendable {
    /// The send rate over the encoder's target rate (libwebrtc's default pacing factor).
    public static let pacingFactor = 2.5
    /// Packets within this much time at the rate go out together (an idle pacer's credit, too).
    public static let burst: Duration = .milliseconds(5)
    /// The longest a frame's packets are spread over.
    public static let maximumFrameSpan: Duration = .seconds(1)
    /// What a frame may leave queued at a bottleneck carrying the estimate, in time at the estimate.
    public static let queueAllowance: Duration = .milliseconds(60)
    /// Nothing is paced slower than this (bits per second).
    public static let minimumRate = 50_000
    /// Bytes a packet carries on the wire beside its payload: RTP header with extensions (~24), SRTP tag (10), UDP
    /// and IPv4 headers (28).
    public static let packetOverhead = 62

    /// Bits per second packets are spaced at while the sustained budget allows.
    public private(set) var rate: Int
    /// Bits per second of the virtual link packets are booked on (the estimate, raised as ``rate`` is).
    public private(set) var sustainedRate: Int
    /// When what was sent so far has left at the rate.
    private var nextFree: Duration?
    /// When what was sent so far has left the virtual link at the sustained rate (in a window only).
    private var sustainedFree: Duration?
    /// The end of the current window: when the virtual link has carried the large frame that opened it.
    private var windowEnd: Duration?
    /// A large frame began: its bytes, until its first packet opens the window.
    private var largeFrame: Int?
    /// The encoder's output in frames that open no window (bits per second over their media time, 500 ms or more;
    /// not their send times, which a catch-up after a window compresses).
    public private(set) var sentRate = 0
    private var metered = (start: UInt32?.none, bytes: 0)
    /// The virtual link carries at least this many times ``sentRate``, so that an encoder above the estimate
    /// drains it.
    public static let sentRateHeadroom = 1.25
    /// 500 ms of 90 kHz media time.
    static let rateInterval: UInt32 = 45_000

    /// A pacer at `pacingFactor` times `targetBitrate`.
    public init(targetBitrate: Int) {
        rate = Self.rate(for: targetBitrate)
        sustainedRate = max(targetBitrate, Self.minimumRate)
    }

    /// A frame of `bytes` (RTP `timestamp`, 90 kHz) starts on a path estimated at `targetBitrate`: the rates for its
    /// packets; a large frame opens a window of the sustained budget at its first packet. Returns the average rate it
    /// leaves at from an idle start (``frameRate(bytes:targetBitrate:)``).
    @discardableResult
    public mutating func beginFrame(bytes: Int, targetBitrate: Int, timestamp: UInt32? = nil) -> Int {
        let floor = Self.spanFloor(bytes: bytes)
        rate = max(Self.rate(for: targetBitrate), floor)
        sustainedRate = max(targetBitrate, floor, Int(Double(sentRate) * Self.sentRateHeadroom), Self.minimumRate)
        let average = Self.frameRate(bytes: bytes, targetBitrate: targetBitrate)
        if average < rate {
            largeFrame = bytes
        } else if let timestamp {
            let start = metered.start ?? timestamp
            let elapsed = timestamp &- start
            if elapsed > UInt32.max / 2 {
                metered = (timestamp, 0)  // went back: start over
            } else if elapsed >= Self.rateInterval {
                sentRate = Int(Double(metered.bytes * 8) * 90_000 / Double(elapsed))
                metered = (timestamp, 0)
            } else {
                // On the wire: with each ~1200-byte packet's overhead.
                let wire = bytes + (bytes / 1_200 + 1) * Self.packetOverhead
                metered = (start, metered.bytes + (metered.start == nil ? 0 : wire))
            }
        }
        return average
    }

    /// The average rate `bytes` waiting leave at on a path estimated at `targetBitrate` (E), from an idle start: the
    /// first ``queueAllowance`` at E at `pacingFactor` × E, the rest at E (R = E × b / (b − E × allowance) for b bits,
    /// at most `pacingFactor` × E), raised so they take at most ``maximumFrameSpan``. What ``SendBacklogGate`` times
    /// a queued frame by.
    public static func frameRate(bytes: Int, targetBitrate: Int) -> Int {
        let estimate = Double(max(targetBitrate, 1))
        let bits = Double(bytes * 8)
        var paced = Double(rate(for: targetBitrate))
        let allowance = estimate * (queueAllowance / .seconds(1))
        if bits > allowance { paced = min(paced, estimate * bits / (bits - allowance)) }
        return max(Int(paced.rounded(.up)), spanFloor(bytes: bytes), minimumRate)
    }

    /// The rate at which `bytes` leave within ``maximumFrameSpan``.
    static func spanFloor(bytes: Int) -> Int {
        Int((Double(bytes * 8) / (maximumFrameSpan / .seconds(1))).rounded(.up))
    }

    /// How long to wait before sending a packet of `bytes` at `now` (zero: send now); books its time on the link.
    public mutating func delay(sending bytes: Int, at now: Duration) -> Duration {
        let earliest = now - Self.burst  // idle time gives one burst of credit, no more
        var start = max(nextFree ?? earliest, earliest)
        if let large = largeFrame {
            // A large frame's first packet: the window lasts until the virtual link has carried it.
            largeFrame = nil
            let from = max(sustainedFree ?? start, start)
            sustainedFree = from
            windowEnd = from + Self.transmission(large, at: sustainedRate)
        }
        if let end = windowEnd, let free = sustainedFree {
            if start >= end && start >= free - Self.queueAllowance {
                // The large frame carried and the virtual link under the allowance: back to the factor alone.
                (windowEnd, sustainedFree) = (nil, nil)
            } else {
                // The virtual link at the sustained rate may hold at most the allowance before this packet.
                start = max(start, free - Self.queueAllowance)
                sustainedFree = max(free, start) + Self.transmission(bytes, at: sustainedRate)
            }
        }
        nextFree = start + Self.transmission(bytes, at: rate)
        return start > now ? start - now : .zero
    }

    static func rate(for target: Int) -> Int { max(Int(Double(max(target, 1)) * pacingFactor), minimumRate) }

    static func transmission(_ bytes: Int, at rate: Int) -> Duration {
        .nanoseconds(Int64(bytes) * 8 * 1_000_000_000 / Int64(max(rate, 1)))
    }
}
