import TokKitMedia

/// When each captured sample was captured, estimated from when the audio device handed the samples over: what an
/// ``AudioSendPipeline`` stamps its RTP timestamps with (``AudioEncodeStage``).
///
/// A sound card captures on its own sample clock, and its driver hands periods over some time later: promptly on
/// an idle machine, late (and then several periods at once, as its buffer fills) on a loaded one, and after a stall
/// longer than its buffer it drops samples (an overrun). An ``AudioBus`` gets no capture time, only the samples, so
/// the capture instants are estimated: sample `k` (counted from the first one handed over) was captured at
/// `base + k / 48000 s`, and since no sample is handed over before it is captured, every handover of samples up to
/// `n` at time `t` bounds the base: `base ≤ t − n / 48000 s`. The estimate is the lowest bound of the last
/// ``window`` (the promptest handover there: a driver that hands over everything captured whenever it runs gives
/// an exact bound each time, however late), so late handovers do not move it, and a drop (every later handover
/// bounds a later base) moves it forward once the handovers before the drop have left the window.
///
/// Before this, the pipeline took the handover time of the first samples as their capture time and then counted
/// samples, re-anchoring only on a 100 ms drift: a first handover that came late, a late handover that re-anchored,
/// or samples lost in an overrun each left the audio's timestamps up to 100 ms or more from its capture instants
/// (while the sender reports map the same timestamps to capture time exactly), so a receiver or a recorder
/// placing video by the reports put it that far from its sound.
///
/// The minimum is kept per ``bucket`` (five buckets make the window), so nothing is allocated and each handover
/// costs a few comparisons. A plain value: the caller gives the time; tested alone.
struct AudioCaptureClock {
    /// How far back handovers count: long enough to hold prompt handovers on a loaded machine (a device that hands
    /// over everything captured when it is late gives an exact bound at every tick), short enough that timestamps
    /// lag what an overrun lost for at most this long.
    static let window: Duration = .milliseconds(250)
    /// The window is five buckets of this length, each holding its lowest bound.
    static let bucket: Duration = .milliseconds(50)
    private static let bucketCount = 5
    let sampleRate: Int

    /// Samples handed over so far.
    private(set) var samplesHandedOver: Int64 = 0
    /// The lowest bound of each bucket (`nil`: no handover in it), and when the newest bucket started.
    private var lowest: (Duration?, Duration?, Duration?, Duration?, Duration?) = (nil, nil, nil, nil, nil)
    private var newestBucket = 0
    private var newestBucketStart: Duration?

    init(sampleRate: Int = 48_000) {
        precondition(sampleRate > 0, "a positive sample rate")
        self.sampleRate = sampleRate
    }

    /// The device handed over `count` samples (per channel) at `now`.
    mutating func handOver(_ count: Int, at now: Duration) {
        samplesHandedOver += Int64(count)
        let bound = now - duration(ofSamples: samplesHandedOver)
        if let start = newestBucketStart, now - start >= Self.window {
            // A long pause: everything known is older than the window.
            for k in 0..<Self.bucketCount { self[k] = nil }
            newestBucketStart = now
        } else if var start = newestBucketStart {
            // Into the bucket `now` falls in; the ones passed are emptied (the oldest leave the window).
            while now - start >= Self.bucket {
                start += Self.bucket
                newestBucket = (newestBucket + 1) % Self.bucketCount
                self[newestBucket] = nil
            }
            newestBucketStart = start
        } else {
            newestBucketStart = now
        }
        self[newestBucket] = min(self[newestBucket] ?? bound, bound)
    }

    /// The estimated capture time of sample `index` (0: the first sample handed over); `nil` before any handover.
    func captureTime(ofSample index: Int64) -> Duration? {
        var base: Duration?
        for k in 0..<Self.bucketCount {
            if let value = self[k] { base = min(base ?? value, value) }
        }
        return base.map { $0 + duration(ofSamples: index) }
    }

    private func duration(ofSamples count: Int64) -> Duration {
        let rate = Int64(sampleRate)
        let (seconds, rest) = count.quotientAndRemainder(dividingBy: rate)
        return .seconds(seconds) + .nanoseconds(rest * 1_000_000_000 / rate)
    }

    private subscript(_ k: Int) -> Duration? {
        get {
            switch k {
            case 0: lowest.0
            case 1: lowest.1
            case 2: lowest.2
            case 3: lowest.3
            default: lowest.4
            }
        }
        set {
            switch k {
            case 0: lowest.0 = newValue
            case 1: lowest.1 = newValue
            case 2: lowest.2 = newValue
            case 3: lowest.3 = newValue
            default: lowest.4 = newValue
            }
        }
    }
}
