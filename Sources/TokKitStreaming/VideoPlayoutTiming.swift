/// When to render each received video frame: its capture time on the local clock plus a playout delay that
/// follows how late frames complete (WebRTC's jitter buffer target delay, in a simpler form).
///
/// A frame whose packets all arrive at once completes at its expected time: its RTP time placed on the local
/// clock by the fastest transit seen in the last ``Configuration/baselineWindow`` (one minimum per second, so a
/// path that gets slower is forgotten within that window). A frame waiting for a NACK repair, or behind a key
/// frame's many packets, completes late. The target delay is the ``Configuration/quantile`` of the lateness of the
/// last ``Configuration/historyFrames`` frames, in ``Configuration/resolution`` steps, bounded by
/// ``Configuration/minimumDelay`` and ``Configuration/maximumDelay``. The delay in use moves toward the target by
/// at most ``Configuration/changePerSecond`` of the stream's time, so a change never stalls or rushes the picture.
///
/// Rendering each frame at `expected + delay` instead of when it completes hides repairs shorter than the delay:
/// without it, a frame repaired after one 100 ms round trip leaves a gap between two rendered frames that crosses
/// the freeze threshold at 30 fps.
///
/// A pure value with injected times (any monotonic clock, the same for every call), fed in decode order; not
/// thread-safe. Its storage is allocated at init; nothing is allocated per frame.
public struct VideoPlayoutTiming: Sendable {
    /// Bounds and adaptation speed.
    public struct Configuration: Hashable, Sendable {
        /// The least delay (a fixed latency an app may ask for).
        public var minimumDelay: Duration
        /// The most delay (a frame later than this renders when it completes).
        public var maximumDelay: Duration
        /// The share of frames the target delay covers, 0...1.
        public var quantile: Double
        /// Frames whose lateness sets the target.
        public var historyFrames: Int
        /// The lateness histogram's step.
        public var resolution: Duration
        /// How long the fastest transit stays the reference.
        public var baselineWindow: Duration
        /// How much the delay in use may change per second of stream time.
        public var changePerSecond: Duration

        public init(minimumDelay: Duration = .zero, maximumDelay: Duration = .milliseconds(400),
                    quantile: Double = 0.95, historyFrames: Int = 300, resolution: Duration = .milliseconds(5),
                    baselineWindow: Duration = .seconds(16), changePerSecond: Duration = .milliseconds(100)) {
            self.minimumDelay = minimumDelay
            self.maximumDelay = maximumDelay
            self.quantile = quantile
            self.historyFrames = historyFrames
            self.resolution = resolution
            self.baselineWindow = baselineWindow
            self.changePerSecond = changePerSecond
        }
    }

    /// A frame this much later than expected (a sender restart, a timestamp jump) starts the timing over.
    static let resetLateness: Duration = .seconds(2)

    public let configuration: Configuration
    /// The delay in use: frames render this long after their expected time.
    public private(set) var delay: Duration
    /// Where ``delay`` is heading.
    public private(set) var targetDelay: Duration

    /// The RTP clock unwrapped: the last timestamp and its unwrapped value in ticks.
    private var rtp: (last: UInt32, unwrapped: Int64)?
    /// The stream time of the previous frame (for the change-rate limit).
    private var lastStreamTime: Duration?
    /// The fastest transit (completion time minus stream time) of each of the last seconds, by second.
    private var minima: [(second: Int64, transit: Duration)]
    private var baseline: Duration?
    /// The lateness of the last frames as histogram buckets (a ring), and the histogram.
    private var history: [UInt16]
    private var historyNext = 0
    private var historyCount = 0
    private var histogram: [Int32]

    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
        delay = configuration.minimumDelay
        targetDelay = configuration.minimumDelay
        let window = max(1, Int(configuration.baselineWindow / .seconds(1)))
        minima = Array(repeating: (Int64.min, .zero), count: window)
        history = Array(repeating: 0, count: max(1, configuration.historyFrames))
        let step = max(configuration.resolution, .microseconds(1))
        histogram = Array(repeating: 0, count: Int(configuration.maximumDelay / step) + 2)
    }

    /// A frame with `rtpTimestamp` (90 kHz) completed at `time`: returns when to render it (may be in the past:
    /// render at once).
    public mutating func renderTime(rtpTimestamp: UInt32, completedAt time: Duration) -> Duration {
        let streamTime = unwrap(rtpTimestamp)
        let transit = time - streamTime
        updateBaseline(transit, at: time)
        guard let baseline else { return time }
        let lateness = transit - baseline
        if lateness > Self.resetLateness {
            reset()
            return renderTime(rtpTimestamp: rtpTimestamp, completedAt: time)
        }
        record(lateness)
        adjustDelay(streamTime: streamTime)
        return streamTime + baseline + delay
    }

    /// Starts over (a new stream): the next frame sets the reference; the delay is kept as the best guess.
    public mutating func reset() {
        rtp = nil
        lastStreamTime = nil
        baseline = nil
        for i in minima.indices { minima[i] = (Int64.min, .zero) }
        for i in histogram.indices { histogram[i] = 0 }
        historyNext = 0
        historyCount = 0
    }

    // MARK: - Steps

    private mutating func unwrap(_ timestamp: UInt32) -> Duration {
        let ticks: Int64
        if let rtp {
            ticks = rtp.unwrapped + Int64(Int32(bitPattern: timestamp &- rtp.last))
        } else {
            ticks = 0
        }
        rtp = (timestamp, ticks)
        // Duration arithmetic (128-bit): a peer's timestamps may jump by 2^31 every frame, and ticks × 100 000 in
        // Int64 would overflow after some 40 000 such frames.
        return .seconds(ticks) / 90_000
    }

    private mutating func updateBaseline(_ transit: Duration, at time: Duration) {
        let second = time.components.seconds
        let slot = Int(UInt64(bitPattern: second) % UInt64(minima.count))
        if minima[slot].second != second {
            minima[slot] = (second, transit)
        } else if transit < minima[slot].transit {
            minima[slot].transit = transit
        }
        var lowest = transit
        for entry in minima where entry.second > second - Int64(minima.count) && entry.transit < lowest {
            lowest = entry.transit
        }
        baseline = lowest
    }

    private mutating func record(_ lateness: Duration) {
        let step = max(configuration.resolution, .microseconds(1))
        let bucket = UInt16(min(max(0, Int(lateness / step)), histogram.count - 1))
        if historyCount == history.count {
            histogram[Int(history[historyNext])] -= 1
        } else {
            historyCount += 1
        }
        history[historyNext] = bucket
        histogram[Int(bucket)] += 1
        historyNext = (historyNext + 1) % history.count
        // The smallest lateness that `quantile` of the history does not exceed (the upper edge of its bucket).
        let covered = Int32((Double(historyCount) * min(max(configuration.quantile, 0), 1)).rounded(.up))
        var cumulative: Int32 = 0
        var target = histogram.count - 1
        for (index, count) in histogram.enumerated() {
            cumulative += count
            if cumulative >= covered { target = index; break }
        }
        let upper = step * (target + 1)
        targetDelay = min(max(upper, configuration.minimumDelay), configuration.maximumDelay)
    }

    private mutating func adjustDelay(streamTime: Duration) {
        defer { lastStreamTime = streamTime }
        guard let last = lastStreamTime, streamTime > last else { return }
        let elapsed = min(streamTime - last, .seconds(1))
        let allowed = configuration.changePerSecond * (elapsed / .seconds(1))
        if targetDelay > delay {
            delay = min(targetDelay, delay + allowed)
        } else {
            delay = max(targetDelay, delay - allowed)
        }
    }
}
