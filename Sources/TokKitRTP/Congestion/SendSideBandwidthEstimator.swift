/// A compact Google Congestion Control (draft-ietf-rmcat-gcc-02) on the send side: from transport-wide feedback
/// about our packets (draft-holmer-rmcat-transport-wide-cc-extensions-01), the bitrate the path can carry.
///
/// Per feedback (``update(now:packets:)``), in send order:
/// - delay-based (§5): received packets are grouped into 5 ms send bursts (``InterArrivalGrouper``, §5.2); each
///   group's delay variation feeds the ``TrendlineEstimator`` (in place of §5.3's Kalman filter), whose trend
///   the ``OveruseDetector`` (§5.4, adaptive threshold) classifies; the ``AIMDRateController`` (§5.5) turns the
///   feedback's signal (over-use if any group over-used) into the delay-based estimate, with R_hat from the
///   ``ReceivedRateMeter``;
/// - loss-based (§6): ``LossBasedController`` on the fraction of packets reported not received;
/// - target = min(delay-based, loss-based), within [minimum, maximum].
///
/// No clock: times are passed in (µs; `now` and send times on the sender's clock, arrivals on the receiver's),
/// so it runs the same under tests and on the network thread. Limits: no probing (the estimate starts at
/// ``Configuration/start`` and only AIMD moves it), no pacer, no RTT from the feedback (200 ms assumed for the
/// AIMD's response time), 24-bit reference-time wraps (every 12 days) are not unwrapped. A plain value: use it
/// from one thread at a time; it allocates nothing after init.
public struct SendSideBandwidthEstimator: Sendable {
    /// Bounds and start value of the estimate (bits per second).
    public struct Configuration: Sendable, Hashable {
        public var minimum: Int
        public var start: Int
        public var maximum: Int

        public init(minimum: Int = 50_000, start: Int, maximum: Int) {
            self.minimum = minimum
            self.start = start
            self.maximum = maximum
        }
    }

    public let configuration: Configuration
    public private(set) var grouper = InterArrivalGrouper()
    public private(set) var trendline = TrendlineEstimator()
    public private(set) var detector = OveruseDetector()
    public private(set) var delayBased: AIMDRateController
    public private(set) var lossBased: LossBasedController
    public private(set) var receivedRate = ReceivedRateMeter()
    /// The signal of the last feedback.
    public private(set) var usage: BandwidthUsage = .normal
    /// Feedback messages and packets taken, and packets reported lost.
    public private(set) var feedbackCount = 0
    public private(set) var packetCount = 0
    public private(set) var lostCount = 0
    /// The previous feedback message's packets: lost, and in all (heavy loss is read over the last two).
    private var previousFeedback = (lost: 0, total: 0)

    public init(_ configuration: Configuration) {
        self.configuration = configuration
        delayBased = AIMDRateController(minimum: configuration.minimum, start: configuration.start,
                                        maximum: configuration.maximum)
        lossBased = LossBasedController(minimum: configuration.minimum, start: configuration.start,
                                        maximum: configuration.maximum)
    }

    /// The target bitrate: min(delay-based, loss-based), within the configured bounds (bits per second).
    public var target: Int {
        min(max(min(delayBased.estimate, lossBased.estimate), configuration.minimum), configuration.maximum)
    }

    /// Takes one feedback's packets (in transport sequence order, i.e. send order) at `now` and returns the
    /// new ``target``.
    @discardableResult
    public mutating func update(now: Int64, packets: [TransportPacketResult]) -> Int {
        var lost = 0
        var overused = false
        for packet in packets {
            guard let arrival = packet.arrivalTime else {
                lost += 1
                continue
            }
            guard let delta = grouper.add(sendTime: packet.sendTime, arrivalTime: arrival, size: packet.size)
            else { continue }
            let trend = trendline.update(delta)
            if detector.detect(modifiedTrend: trend, sendDelta: delta.sendDelta, now: now) == .overusing {
                overused = true
            }
        }
        guard !packets.isEmpty else { return target }
        receivedRate.add(packets)
        feedbackCount += 1
        packetCount += packets.count
        lostCount += lost
        usage = overused ? .overusing : detector.state
        // Heavy loss in the last two feedback messages (50-200 ms): the queue overflowed (a bottleneck's onset), not
        // only grew.
        let (recentLost, recentTotal) = (lost + previousFeedback.lost, packets.count + previousFeedback.total)
        previousFeedback = (lost, packets.count)
        let overflowing = recentTotal >= LossBasedController.minimumPackets
            && Double(recentLost) > LossBasedController.fastLoss * Double(recentTotal)
        delayBased.update(usage, receivedRate: receivedRate.bitsPerSecond, recentRate: receivedRate.recentBitsPerSecond,
                          overflowing: overflowing, now: now)
        lossBased.update(lost: lost, total: packets.count, now: now)
        return target
    }
}
