import Testing
import TokKitRTP

/// GCC against a simulated path: packets of 1200 bytes paced at the sender's rate, a FIFO bottleneck (or none),
/// 20 ms propagation, deterministic loss; transport-wide feedback every 50 ms. Every run is a bounded number of
/// simulated steps; no real time passes.
@Suite struct SendSideBandwidthEstimatorTests {
    /// A simulated path and the sender on it; its state (clock, queue, packets in flight) carries over from one
    /// ``run(_:seconds:rate:)`` to the next, so a test can change the sender or the loss between runs.
    struct Link {
        /// Bottleneck capacity (bits per second); nil: unlimited.
        var capacity: Int?
        var propagation: Int64 = 20_000
        /// Lose every n-th packet (nil: none).
        var loseEvery: Int?
        var time: Int64 = 0
        var sequence: UInt16 = 0
        /// When the bottleneck finishes sending what is queued (µs).
        var queueFree: Int64 = 0
        var inFlight: [TransportPacketResult] = []
        var nextFeedback: Int64 = 50_000
        var index = 0

        init(capacity: Int? = nil, loseEvery: Int? = nil, sequence: UInt16 = 0) {
            self.capacity = capacity
            self.loseEvery = loseEvery
            self.sequence = sequence
        }

        /// Queuing delay at the bottleneck now (µs).
        var queueDelay: Int64 { max(0, queueFree - time - propagation) }

        /// Sends 1200-byte packets for `seconds` at `rate(target)`, feeding the receiver's feedback (what arrived
        /// by then, in sequence order, losses included) to `estimator` every 50 ms; returns the target after
        /// each feedback.
        mutating func run(_ estimator: inout SendSideBandwidthEstimator, seconds: Int,
                          rate: (Int) -> Int) -> [Int] {
            let size = 1200
            let end = time + Int64(seconds) * 1_000_000
            var targets: [Int] = []
            let maximumSteps = seconds * 20_000  // ≥ packets at 100 Mb/s: bounded whatever the rate
            for _ in 0 ..< maximumSteps where time < end {
                let sendRate = max(rate(estimator.target), 10_000)
                index += 1
                var arrival: Int64? = time + propagation
                if let capacity {
                    queueFree = max(time + propagation, queueFree) + Int64(size * 8) * 1_000_000 / Int64(capacity)
                    arrival = queueFree
                }
                if let n = loseEvery, index % n == 0 { arrival = nil }
                inFlight.append(TransportPacketResult(sequenceNumber: sequence, sendTime: time, arrivalTime: arrival,
                                                      size: size))
                sequence &+= 1
                time += Int64(size * 8) * 1_000_000 / Int64(sendRate)
                for _ in 0 ..< 1_000 where time >= nextFeedback {  // every interval that passed
                    let now = nextFeedback + propagation
                    let cut = inFlight.firstIndex { ($0.arrivalTime ?? $0.sendTime) > now } ?? inFlight.count
                    if cut > 0 {
                        targets.append(estimator.update(now: now, packets: Array(inFlight[..<cut])))
                        inFlight.removeFirst(cut)
                    }
                    nextFeedback += 50_000
                }
            }
            return targets
        }
    }

    @Test func constantDelayAndNoLossGrowsTowardTheCap() {
        var estimator = SendSideBandwidthEstimator(.init(start: 300_000, maximum: 2_000_000))
        var link = Link(sequence: 65000)  // across the wrap
        // The sender uses what the estimate allows (an encoder following its target).
        let targets = link.run(&estimator, seconds: 40) { $0 }
        #expect(targets.count > 700)
        #expect(estimator.usage != .overusing)
        #expect(zip(targets, targets.dropFirst()).allSatisfy { $0 <= $1 }, "the estimate fell without congestion")
        #expect(targets.last! >= 1_900_000, "\(targets.last!) after 40 s")
        // Multiplicative phase: about 8 % per second, so not at the cap within the first 10 s.
        #expect(targets[min(199, targets.count - 1)] < 1_000_000)
    }

    @Test func aBottleneckBelowTheSendRateIsDetectedAndTheEstimateFallsToAboutIt() {
        // 1.5 Mb/s into a 500 kb/s bottleneck: the queuing delay grows linearly (about 2 ms per 3 ms sent).
        var estimator = SendSideBandwidthEstimator(.init(start: 1_500_000, maximum: 2_000_000))
        let capacity = 500_000
        var link = Link(capacity: capacity)
        let open = link.run(&estimator, seconds: 2) { _ in 1_500_000 }
        let firstDrop = open.firstIndex { $0 < 1_500_000 }
        #expect(firstDrop != nil && firstDrop! < 20, "overuse must be detected within 1 s; targets \(open.prefix(20))")
        // β × R_hat = 0.85 × 500 kb/s; tolerance ±10 % of the bottleneck: 75 % ... 95 %.
        let settled = open.last!
        #expect(Double(settled) >= 0.75 * Double(capacity) && Double(settled) <= 0.95 * Double(capacity),
                "settled at \(settled)")

        // Then the sender follows the estimate: it stays around the bottleneck (mean of the last 10 s within
        // 70 % ... 110 %), and the queue the open-loop phase built drains instead of growing.
        let backlog = link.queueDelay
        let closed = link.run(&estimator, seconds: 20) { $0 }
        let tail = closed.suffix(200)
        let mean = Double(tail.reduce(0, +)) / Double(tail.count)
        #expect(mean >= 0.7 * Double(capacity) && mean <= 1.1 * Double(capacity), "mean \(mean)")
        #expect(link.queueDelay < backlog, "queue \(backlog) → \(link.queueDelay) µs")
    }

    /// An over-use with a third of the packets lost (a queue that overflowed) is cut by 0.7, not 0.85; the same
    /// bottleneck without loss is not. (2 Mb/s: enough packets in two feedback messages to judge the loss.)
    @Test func anOverUseWithHeavyLossIsCutAsAnOverflow() {
        for loseEvery in [3, nil] as [Int?] {
            var estimator = SendSideBandwidthEstimator(.init(start: 4_000_000, maximum: 8_000_000))
            var link = Link(capacity: 2_000_000, loseEvery: loseEvery)
            let targets = link.run(&estimator, seconds: 2) { _ in 4_000_000 }
            #expect((estimator.delayBased.lastOverflowDecrease != nil) == (loseEvery != nil),
                    "\(targets.prefix(20)) \(estimator.lostCount)/\(estimator.packetCount)")
        }
    }

    @Test func twentyPercentLossLowersTheEstimateAndItRecoversWithoutLoss() {
        var estimator = SendSideBandwidthEstimator(.init(start: 1_000_000, maximum: 2_000_000))
        var link = Link(loseEvery: 5)
        let lossy = link.run(&estimator, seconds: 12) { $0 }
        let low = lossy.last!
        #expect(estimator.lossBased.lastLossFraction > 0.15 && estimator.lossBased.lastLossFraction < 0.25)
        // Under the fast 25 %: one decrease a second, × (1 − 0.5 × 0.2) each: about 0.3 of the start after 12 s.
        #expect(low < 400_000, "after 12 s of 20 % loss: \(low)")
        link.loseEvery = nil
        let clean = link.run(&estimator, seconds: 20) { $0 }
        // 5 % per second for 20 s: × 2.6.
        #expect(clean.last! > 2 * low, "after 20 s without loss: \(clean.last!) from \(low)")
    }

    /// 5 % random loss at a few hundred kb/s (feedback every 50 ms reporting 6 packets): counted over 200 ms
    /// windows of ~24 packets, one window in a dozen showed over 10 % and the estimate sank; over 1 s it holds.
    @Test func randomFivePercentLossHoldsTheEstimate() {
        var controller = LossBasedController(minimum: 50_000, start: 800_000, maximum: 2_000_000)
        var state: UInt64 = 42
        for step in 0 ..< 1_200 {  // 60 s
            var lost = 0
            for _ in 0 ..< 6 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                if state >> 33 < (UInt64(1) << 31) / 20 { lost += 1 }  // 5 %
            }
            controller.update(lost: lost, total: 6, now: Int64(step) * 50_000)
        }
        #expect(controller.estimate >= 720_000, "\(controller.estimate)")
    }

    /// An overflowing bottleneck (half the packets lost) is cut within 200 ms, not after a second.
    @Test func heavyLossDecreasesWithinTheFastWindow() {
        var controller = LossBasedController(minimum: 50_000, start: 1_000_000, maximum: 2_000_000)
        for step in 0 ..< 5 { controller.update(lost: 5, total: 10, now: Int64(step) * 50_000) }
        #expect(controller.estimate == 750_000 && controller.lastLossFraction == 0.5)
    }

    @Test func holdsBetweenTwoAndTenPercentLoss() {
        var controller = LossBasedController(minimum: 50_000, start: 1_000_000, maximum: 2_000_000)
        for step in 0 ..< 20 { controller.update(lost: 5, total: 100, now: Int64(step) * 100_000) }
        #expect(controller.estimate == 1_000_000)
        controller.update(lost: 50, total: 100, now: 2_100_000)
        // The window 1.8 ... 2.1 s holds 55 lost of 200: × (1 − 0.5 × 0.275).
        #expect((862_000...863_000).contains(controller.estimate), "\(controller.estimate)")
    }
}

/// R_hat per feedback message: a lost message takes its bytes and its time away together.
@Suite struct ReceivedRateMeterTests {
    /// One message of `count` 1250-byte packets arriving every 10 ms (1 Mb/s) from `sequence`, at `start` µs.
    static func message(sequence: UInt16, start: Int64, count: Int = 5) -> [TransportPacketResult] {
        (0 ..< count).map { i in
            TransportPacketResult(sequenceNumber: sequence &+ UInt16(i), sendTime: start + Int64(i) * 10_000,
                                  arrivalTime: start + Int64(i) * 10_000, size: 1250)
        }
    }

    @Test func contiguousMessagesMeasureTheDeliveredRate() {
        var meter = ReceivedRateMeter()
        for k in 0 ..< 20 { meter.add(Self.message(sequence: UInt16(k * 5), start: Int64(k) * 50_000)) }
        #expect(meter.bitsPerSecond == 1_000_000, "\(String(describing: meter.bitsPerSecond))")
    }

    /// Half a second at 1 Mb/s, then 150 ms at 500 kb/s (packets 20 ms apart): the half second reads in between,
    /// the recent rate reads the new one.
    @Test func theRecentRateFollowsAFallAtOnce() {
        var meter = ReceivedRateMeter()
        for k in 0 ..< 10 { meter.add(Self.message(sequence: UInt16(k * 5), start: Int64(k) * 50_000)) }
        for k in 0 ..< 3 {
            let start = 500_000 + Int64(k) * 50_000
            meter.add((0 ..< 5).map { i in
                let sequence = UInt16(50 + k * 5 + i)
                let sent = start + Int64(i) * 10_000
                return TransportPacketResult(sequenceNumber: sequence, sendTime: sent,
                                             arrivalTime: 500_000 + Int64(k * 5 + i + 1) * 20_000, size: 1250)
            })
        }
        let (rate, recent) = (meter.bitsPerSecond ?? 0, meter.recentBitsPerSecond ?? 0)
        #expect(rate > 600_000 && rate < 900_000, "\(rate)")
        #expect(abs(recent - 500_000) < 10_000, "\(recent)")
    }

    @Test func aLostFeedbackMessageDoesNotLowerTheRate() {
        var meter = ReceivedRateMeter()
        for k in 0 ..< 20 where k % 3 != 1 {  // every third message lost (k = 1, 4, 7, ...)
            meter.add(Self.message(sequence: UInt16(k * 5), start: Int64(k) * 50_000))
        }
        // The consecutive windows before counted the lost messages' time without their bytes.
        #expect(meter.bitsPerSecond == 1_000_000, "\(String(describing: meter.bitsPerSecond))")
    }
}
