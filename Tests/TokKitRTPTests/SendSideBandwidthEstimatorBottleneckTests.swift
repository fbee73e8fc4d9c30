import Testing
import TokKitRTP

/// GCC behind network-bench's bottleneck, replayed in simulated time: a 640x480 30 fps encoder following the
/// target (its first frame a key frame, the rest ± 25 % around target / 30), audio every 20 ms, a pacer at 2.5 ×
/// the target, a drop-tail `tc tbf` bottleneck as the lab sets it (500 kbit/s, 4500-byte burst, queue of rate ×
/// 100 ms + burst), the receiver's real ``TransportFeedbackRecorder`` every 50 ms, and a reverse path that is
/// capped too: feedback waits behind the other side's video and some of it is lost. The sender's real
/// ``TransportSendHistory`` matches the feedback. Every run is a bounded number of events; no real time passes.
@Suite struct SendSideBandwidthEstimatorBottleneckTests {
    struct Trace {
        /// (seconds, target, delay-based, loss-based) after each feedback taken.
        var points: [(t: Double, target: Int, delay: Int, loss: Int)] = []
        var sentBits = 0
        var skippedFrames = 0
        var keyframes = 0
        var deliveredBits: [(t: Double, bits: Int)] = []

        /// The lowest target from `second` on.
        func minimumTarget(from second: Double) -> Int {
            points.filter { $0.t >= second }.map(\.target).min() ?? 0
        }

        /// The mean target from `second` on.
        func meanTarget(from second: Double) -> Double {
            let tail = points.filter { $0.t >= second }
            return Double(tail.map(\.target).reduce(0, +)) / Double(max(tail.count, 1))
        }

        /// The first time the target is under `rate`.
        func firstTime(under rate: Int) -> Double? { points.first { $0.target < rate }?.t }

        /// Bits per second delivered through the bottleneck from `second` on, until `end`.
        func deliveredRate(from second: Double, to end: Double) -> Double {
            Double(deliveredBits.filter { $0.t >= second && $0.t < end }.map(\.bits).reduce(0, +)) / (end - second)
        }

        var summary: String {
            stride(from: 0.0, to: points.last?.t ?? 0, by: 1).map { second in
                let p = points.last { $0.t <= second } ?? points[0]
                return "\(Int(second))s \(p.target / 1000)/\(p.delay / 1000)/\(p.loss / 1000)"
            }.joined(separator: " ")
        }
    }

    /// A deterministic pseudo-random sequence in 0 ..< 1.
    struct Random {
        var state: UInt64
        mutating func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(UInt64(1) << 53)
        }
    }

    struct Scenario {
        var seconds = 60
        var capacity = 500_000
        /// The encoder's configured bitrate (the target never exceeds it).
        var encoderMaximum = 1_000_000
        /// What the encoder makes at the least (bits per second), and how fast it follows its target (s).
        var encoderMinimum = 100_000
        var encoderLag = 0.7
        /// Fraction of feedback messages lost on the reverse path.
        var feedbackLoss = 0.0
        /// Extra delay of feedback on the reverse path: uniform in 0 ... this (µs), as behind a queue of video.
        var feedbackQueueing: Int64 = 0
        /// Scheduling jitter added to arrival stamps on a loaded receiver: uniform 0 ... this (µs).
        var arrivalJitter: Int64 = 0
        /// Random loss on the forward path besides the bottleneck's drops.
        var randomLoss = 0.0
        var seed: UInt64 = 1
    }

    /// Runs `scenario` and returns the trace.
    static func run(_ scenario: Scenario) throws -> Trace {
        var estimator = SendSideBandwidthEstimator(.init(minimum: 50_000, start: 10_000_000, maximum: 10_000_000))
        let history = try TransportSendHistory()
        let recorder = try TransportFeedbackRecorder()
        var random = Random(state: scenario.seed)
        var trace = Trace()
        let propagation: Int64 = 10_000
        let end = Int64(scenario.seconds) * 1_000_000
        // Bottleneck: a FIFO serialised at the capacity, dropping what would exceed its byte limit.
        let limitBytes = scenario.capacity / 8 / 10 + 4500
        var linkFree: Int64 = 0
        var queued: [(leaves: Int64, bytes: Int)] = []
        // Packets waiting in the pacer: (size, transport sequence not yet stamped).
        var pacerQueue: [Int] = []
        var pacerCredit = 0.0
        var pacerLast: Int64 = 0
        var sequence: UInt16 = 1
        var arrivals: [(time: Int64, sequence: UInt16, size: Int)] = []
        var feedbackInFlight: [(arrives: Int64, bytes: [UInt8])] = []
        var nextFrame: Int64 = 0
        var nextAudio: Int64 = 0
        var nextFeedback: Int64 = 50_000
        var frameIndex = 0
        var encoderRate = Double(min(scenario.encoderMaximum, 10_000_000))
        var buffer = [UInt8](repeating: 0, count: 1500)
        var results: [TransportPacketResult] = []
        var feedback = RTCPTransportWideFeedback(senderSSRC: 0, mediaSSRC: 0, baseSequenceNumber: 0, referenceTime: 0,
                                                 feedbackPacketCount: 0, statuses: [])

        // NACK: a packet lost at the bottleneck is sent again a round trip later (not paced), up to 3 times; when
        // the last is lost too its frame is broken, and the receiver asks for a key frame after its 500 ms wait.
        var retransmissions: [(due: Int64, size: Int, attempt: Int)] = []
        var keyframeRequest: Int64?
        var lastKeyframe: Int64 = -1_000_000

        func send(_ size: Int, at now: Int64, attempt: Int = 0) {
            history.record(sequence, sendTime: now, size: size)
            trace.sentBits += size * 8
            queued.removeAll { $0.leaves <= now }
            let backlog = queued.map(\.bytes).reduce(0, +)
            if backlog + size > limitBytes, size > 200 {
                if attempt == 3 {
                    keyframeRequest = keyframeRequest ?? now + 500_000
                } else {
                    retransmissions.append((now + 2 * propagation + 50_000 + Int64(backlog * 8) * 1_000_000
                        / Int64(scenario.capacity), size, attempt + 1))
                }
            }
            if backlog + size <= limitBytes, random.next() >= scenario.randomLoss {
                linkFree = max(linkFree, now) + Int64(size * 8) * 1_000_000 / Int64(scenario.capacity)
                queued.append((linkFree, size))
                let jitter = scenario.arrivalJitter > 0 ? Int64(random.next() * Double(scenario.arrivalJitter)) : 0
                arrivals.append((linkFree + propagation + jitter, sequence, size))
            }
            sequence &+= 1
        }

        // Events every 1 ms of simulated time (the pacer's granularity is finer than that: credit carries over).
        var now: Int64 = 0
        while now < end {
            let target = estimator.target
            // The encoder's output follows its target over about a second (libvpx's rate control buffer) and
            // does not go under ``Scenario/encoderMinimum`` (640x480 cannot be made smaller).
            let rate = Double(min(target, scenario.encoderMaximum))
            encoderRate += (rate - encoderRate) * min(0.001 / scenario.encoderLag, 1)
            if now >= nextFrame {
                nextFrame += 33_333
                // WebRTC's frame dropper: no frame while the pacer is more than 400 ms behind.
                let pacingRate = 2.5 * Double(min(target, 10_000_000))
                let backlog = Double(pacerQueue.reduce(0, +) * 8) / pacingRate
                if backlog <= 0.4 {
                    var bytes = Int(max(encoderRate, Double(scenario.encoderMinimum)) / 30 / 8
                        * (0.75 + 0.5 * random.next()))
                    // A key frame: the first, and one asked for (at most one per 300 ms); libvpx allows 9 × a
                    // frame's share of the target for it (Chromium's max intra bitrate, 900 %).
                    if frameIndex == 0 || keyframeRequest.map({ now >= $0 && now - lastKeyframe >= 300_000 }) == true {
                        bytes *= frameIndex == 0 ? 5 : 9
                        keyframeRequest = nil
                        lastKeyframe = now
                        trace.keyframes += 1
                    }
                    frameIndex += 1
                    while bytes > 0 {
                        pacerQueue.append(min(bytes, 1200) + 40)
                        bytes -= 1200
                    }
                } else {
                    trace.skippedFrames += 1
                }
            }
            retransmissions.sort { $0.due < $1.due }  // earliest due first (appended as losses are found)
            while let first = retransmissions.first, first.due <= now {
                retransmissions.removeFirst()
                send(first.size, at: now, attempt: first.attempt)
                retransmissions.sort { $0.due < $1.due }
            }
            if now >= nextAudio {
                send(100, at: now)
                nextAudio += 20_000
            }
            // Pacer: 2.5 × the target, 5 ms of burst credit.
            let pacingRate = 2.5 * Double(min(target, 10_000_000))
            pacerCredit = min(pacerCredit + pacingRate * Double(now - pacerLast) / 8_000_000, pacingRate * 0.005 / 8)
            pacerLast = now
            while let size = pacerQueue.first, pacerCredit > 0 {
                pacerCredit -= Double(size)
                pacerQueue.removeFirst()
                send(size, at: now)
            }
            // Receiver: record what arrived by now; feedback every 50 ms.
            while let first = arrivals.first, first.time <= now {
                arrivals.removeFirst()
                recorder.record(first.sequence, arrivalNanoseconds: UInt64(first.time) * 1000 + 1_000_000_000)
            }
            if now >= nextFeedback {
                nextFeedback += 50_000
                for _ in 0 ..< 10 {
                    let length = try buffer.withUnsafeMutableBytes {
                        try recorder.writeFeedback(senderSSRC: 1, mediaSSRC: 2, into: $0)
                    }
                    guard let length else { break }
                    if random.next() < scenario.feedbackLoss { continue }
                    let queueing = Int64(random.next() * Double(scenario.feedbackQueueing))
                    // FIFO on the reverse path: never ahead of the one before.
                    let arrives = max(now + propagation + queueing, feedbackInFlight.last?.arrives ?? 0)
                    feedbackInFlight.append((arrives, Array(buffer.prefix(length))))
                }
            }
            while let first = feedbackInFlight.first, first.arrives <= now {
                feedbackInFlight.removeFirst()
                try first.bytes.withUnsafeBytes { try feedback.parse($0) }
                results.removeAll(keepingCapacity: true)
                history.results(for: feedback, into: &results)
                if !results.isEmpty {
                    estimator.update(now: now, packets: results)
                    let t = Double(now) / 1_000_000
                    trace.points.append((t, estimator.target, estimator.delayBased.estimate,
                                         estimator.lossBased.estimate))
                    let bits = results.filter { $0.arrivalTime != nil }.map(\.size).reduce(0, +) * 8
                    trace.deliveredBits.append((t, bits))
                }
            }
            now += 1000
        }
        return trace
    }

    /// The lab's case: both directions capped, so feedback is delayed (0-100 ms behind the other side's video)
    /// and a third of it lost. The goal after the first seconds: the target stays near the link's capacity, no trip
    /// to the 50 kb/s floor (checked: never under 200 kb/s after the cap).
    ///
    /// Known issue (issue 14): the loss-based controller cuts its own estimate (10 Mb/s, far above anything sent)
    /// by × (1 − 0.5 × loss) every 200 ms while loss lasts, and loss lasts while the encoder, the send queue, NACK
    /// retransmissions and key frames catch up with the last cut: the target reaches the floor 3-4 s after the cap
    /// in every seed here (and with clean feedback), as in network-bench. A fix in libwebrtc's manner (decreases
    /// 500 ms apart, from the target in force or the rate sent, not under 0.85 × R_hat) kept it at ~420 kb/s here
    /// but was not kept: in the lab it left the link loaded enough for a key-frame-request storm (Streaming.md,
    /// "Drop-tail bottlenecks"). When the collapse is fixed, `withKnownIssue` fails and these become plain checks.
    @Test(arguments: [UInt64(1), 2, 3])
    func behindADropTailBottleneckWithLossyFeedbackTheTargetStaysNearTheCapacity(seed: UInt64) throws {
        let scenario = Scenario(feedbackLoss: 0.33, feedbackQueueing: 100_000, arrivalJitter: 2_000, seed: seed)
        let trace = try Self.run(scenario)
        let under = try #require(trace.firstTime(under: scenario.capacity), "never under the cap: \(trace.summary)")
        #expect(under < 5, "\(trace.summary)")
        withKnownIssue("issue 14: the loss-based estimate overshoots to its floor behind a drop-tail bottleneck") {
            #expect(trace.minimumTarget(from: under + 1) >= 200_000, "\(trace.summary)")
        }
    }

    /// The same link with every feedback delivered at once: the collapse does not come from lost feedback.
    @Test func behindADropTailBottleneckWithCleanFeedbackTheTargetStaysNearTheCapacity() throws {
        let scenario = Scenario()
        let trace = try Self.run(scenario)
        let under = try #require(trace.firstTime(under: scenario.capacity), "never under the cap: \(trace.summary)")
        #expect(under < 5, "\(trace.summary)")
        withKnownIssue("issue 14: the loss-based estimate overshoots to its floor behind a drop-tail bottleneck") {
            #expect(trace.minimumTarget(from: under + 1) >= 200_000, "\(trace.summary)")
        }
    }

    /// Random 5 % loss on an uncapped path (network-bench's loss row without its delay): under the loss-based
    /// controller's 10 %, so the target must not move at all.
    @Test func randomFivePercentLossWithoutABottleneckKeepsTheTarget() throws {
        let scenario = Scenario(capacity: 100_000_000, feedbackLoss: 0.05, feedbackQueueing: 20_000,
                                arrivalJitter: 2_000, randomLoss: 0.05)
        let trace = try Self.run(scenario)
        #expect(trace.minimumTarget(from: 0) == 10_000_000, "\(trace.summary)")
    }
}
