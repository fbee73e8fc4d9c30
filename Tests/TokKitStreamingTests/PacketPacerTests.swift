import Testing
import TokKitStreaming

/// The pacer, fed with times chosen by the test (no clock): packets are "sent" when it says.
struct PacketPacerTests {
    /// Sends `count` packets of `bytes` starting at `start`, waiting as told; returns the send times.
    static func send(_ pacer: inout PacketPacer, count: Int, bytes: Int = 1_200, from start: Duration) -> [Duration] {
        var now = start
        var times: [Duration] = []
        for _ in 0..<count {
            now += pacer.delay(sending: bytes, at: now)
            times.append(now)
        }
        return times
    }

    /// A delta frame of two packets at 500 kb/s: the first goes at once, the second once the burst credit (5 ms at
    /// 1.25 Mb/s) is spent, 2.68 ms later.
    @Test func aSmallFrameLeavesWithinMilliseconds() {
        var pacer = PacketPacer(targetBitrate: 500_000)
        pacer.beginFrame(bytes: 2_400, targetBitrate: 500_000)
        let times = Self.send(&pacer, count: 2, from: .seconds(1))
        #expect(times == [.seconds(1), .seconds(1) + .nanoseconds(2_680_000)])
    }

    /// A 24 kB key frame at a 500 kb/s target: 1.25 Mb/s, so 20 packets take about 150 ms (less the first 5 ms
    /// of credit), evenly spaced after the burst.
    @Test func aKeyFrameIsSpreadAtTwoAndAHalfTimesTheTarget() {
        var pacer = PacketPacer(targetBitrate: 500_000)
        #expect(pacer.beginFrame(bytes: 24_000, targetBitrate: 500_000) == 1_250_000)
        let times = Self.send(&pacer, count: 20, from: .seconds(1))
        let span = times.last! - times.first!
        #expect(span >= .milliseconds(140) && span <= .milliseconds(150), "\(span)")
        // 1200 B at 1.25 Mb/s: 7.68 ms apart once the burst credit is spent.
        let gaps: [Duration] = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(gaps.suffix(15).allSatisfy { $0 == .nanoseconds(7_680_000) }, "\(gaps)")
        // Whatever the window, never more than the rate plus the burst.
        for (i, t) in times.enumerated() {
            let within = times[i...].filter { $0 < t + .milliseconds(50) }.count
            #expect(Double(within * 1_200 * 8) <= 1_250_000 * 0.055 + 1_200 * 8)
        }
    }

    /// While a bottleneck's queue drains, a 12 kB key frame at a 500 kb/s estimate is paced at the estimate itself:
    /// 10 packets over about 190 ms (less the first 5 ms of credit), 19.2 ms apart, where the usual factor sends
    /// them in about 70 ms; the time the send-queue backlog counts for them is the same.
    @Test func whileTheQueueDrainsAKeyFrameIsPacedAtTheEstimate() {
        var pacer = PacketPacer(targetBitrate: 500_000)
        #expect(pacer.beginFrame(bytes: 12_000, targetBitrate: 500_000, factor: PacketPacer.drainingFactor) == 500_000)
        let times = Self.send(&pacer, count: 10, from: .seconds(1))
        let span = times.last! - times.first!
        #expect(span >= .milliseconds(165) && span <= .milliseconds(173), "\(span)")
        #expect(times[9] - times[8] == .nanoseconds(19_200_000))
        #expect(SendBacklogGate.pacedTime(payloadBytes: 1_200 - PacketPacer.packetOverhead, frameBytes: 12_000,
                                          estimate: 500_000, factor: PacketPacer.drainingFactor)
                == .nanoseconds(19_200_000))
        #expect(SendBacklogGate.pacedTime(payloadBytes: 1_200 - PacketPacer.packetOverhead, frameBytes: 12_000,
                                          estimate: 500_000) == .nanoseconds(7_680_000))
        // The maximum span still holds: 30 kB at 10 kb/s goes in 250 ms.
        #expect(pacer.beginFrame(bytes: 30_000, targetBitrate: 10_000, factor: PacketPacer.drainingFactor) == 960_000)
    }

    @Test func aLowTargetCannotHoldAFrameLongerThanTheMaximumSpan() {
        var pacer = PacketPacer(targetBitrate: 10_000)
        let rate = pacer.beginFrame(bytes: 30_000, targetBitrate: 10_000)
        #expect(rate == 960_000)  // 30 kB in 250 ms
        let times = Self.send(&pacer, count: 25, from: .seconds(1))
        #expect(times.last! - times.first! <= PacketPacer.maximumFrameSpan)
    }

    @Test func idleTimeGivesNoMoreThanOneBurstOfCredit() {
        var pacer = PacketPacer(targetBitrate: 400_000)  // 1 Mb/s: 5 ms is 625 B
        pacer.beginFrame(bytes: 1_200, targetBitrate: 400_000)
        _ = Self.send(&pacer, count: 1, from: .seconds(1))
        // Ten seconds idle, then 10 packets: only the first goes without waiting (1200 B > 625 B of credit).
        pacer.beginFrame(bytes: 12_000, targetBitrate: 400_000)
        let times = Self.send(&pacer, count: 10, from: .seconds(11))
        #expect(times[0] == .seconds(11) && times[1] > .seconds(11))
        #expect(times.last! - times.first! >= .milliseconds(80))
    }
}
