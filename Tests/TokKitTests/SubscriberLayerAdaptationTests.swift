import Testing

@testable import TokKit

/// The routed subscriber's layer adaptation, driven by hand: counters and times are given, nothing runs by itself.
@Suite struct SubscriberLayerAdaptationTests {
    /// Feeds a machine one sample a second of `perSecond` packets expected, `lossPercent` of them lost.
    struct Link {
        var machine = SubscriberLayerAdaptation()
        let start = ContinuousClock.now
        var seconds = 0
        var received: UInt64 = 0
        var lost: Int64 = 0

        init(layers: Int = 3, cap: Int = 2) {
            _ = machine.preference(layers: layers, cap: cap)
            _ = machine.sample(received: 0, lost: 0, at: start)  // the baseline
        }

        var now: ContinuousClock.Instant { start + .seconds(seconds) }

        /// `count` seconds at `lossPercent`; the actions, with the second each came at.
        mutating func run(_ count: Int, lossPercent: Int, perSecond: Int = 100) -> [(second: Int, action: SubscriberLayerAdaptation.Action)] {
            var actions: [(second: Int, action: SubscriberLayerAdaptation.Action)] = []
            for _ in 0..<count {
                seconds += 1
                let missed = perSecond * lossPercent / 100
                received += UInt64(perSecond - missed)
                lost += Int64(missed)
                if let action = machine.sample(received: received, lost: lost, at: now) { actions.append((seconds, action)) }
            }
            return actions
        }
    }

    @Test func lossLowersOneLayerAtATimeAndWaitsForTheSwitchToSettle() {
        var link = Link()
        #expect(link.machine.layer == 2)
        let actions = link.run(6, lossPercent: 30)
        // Lowered at the first lossy second, then not before `settle` (2 s) has passed, then nothing below 0.
        #expect(actions.map(\.second) == [1, 3])
        #expect(actions.map(\.action) == [.limit(1), .limit(0)])
        #expect(link.machine.layer == 0 && link.machine.ceiling == 0)
    }

    @Test func smallLossAndTooFewPacketsChangeNothing() {
        var link = Link()
        let run1 = link.run(10, lossPercent: 5)
        #expect(run1.isEmpty, "5 % is under the 8 % that lowers")
        let run2 = link.run(10, lossPercent: 50, perSecond: 10)
        #expect(run2.isEmpty, "10 packets a second is too few to judge")
        #expect(link.machine.layer == 2 && link.machine.ceiling == nil)
    }

    @Test func aCleanLinkIsProbedUpOneLayerAtATimeAndTheTopLiftsTheLimit() {
        var link = Link()
        _ = link.run(3, lossPercent: 40)
        #expect(link.machine.layer == 0)
        // Clean from second 4: samples within settle of the change (second 3) do not count; the hold is 6 s.
        let up = link.run(30, lossPercent: 0)
        #expect(up.map(\.action) == [.limit(1), .limit(nil)])
        #expect(up[0].second >= 3 + 6 && up[0].second <= 3 + 8, "first probe at \(up[0].second)")
        #expect(up[1].second - up[0].second >= 6, "one hold between probes: \(up.map(\.second))")
        #expect(link.machine.layer == 2 && link.machine.ceiling == nil)
        let run3 = link.run(60, lossPercent: 0)
        #expect(run3.isEmpty, "at the top nothing more happens")
    }

    @Test func aFailedProbeGoesBackDownAndDoublesTheWaitUpToTheMaximum() {
        var link = Link()
        _ = link.run(1, lossPercent: 40)  // 2 → 1: the link carries layer 1 only
        #expect(link.machine.layer == 1)
        var probes: [Int] = []
        var holds: [Duration] = []
        // The link loses 40 % whenever the layer is 2, nothing otherwise.
        for _ in 0..<400 {
            let actions = link.run(1, lossPercent: link.machine.layer == 2 ? 40 : 0)
            for (second, action) in actions where action == .limit(nil) { probes.append(second) }
            if actions.contains(where: { $0.action == .limit(1) }) { holds.append(link.machine.hold) }
        }
        #expect(link.machine.layer == 1)
        // Each failed probe doubles the wait: 12, 24, 48, then 60 s at most.
        #expect(holds.prefix(4) == [.seconds(12), .seconds(24), .seconds(48), .seconds(60)], "\(holds)")
        #expect(holds.dropFirst(3).allSatisfy { $0 == .seconds(60) })
        let gaps = zip(probes.dropFirst(), probes).map { $0 - $1 }
        #expect(gaps.count >= 4, "probes at \(probes)")
        #expect(zip(gaps, gaps.dropFirst()).allSatisfy { $0 <= $1 }, "never more often than before: \(gaps)")
        #expect(gaps.last.map { $0 >= 60 } == true, "\(gaps)")
        // Not oscillating: over 400 s at most 10 probes.
        #expect(probes.count <= 10, "probes at \(probes)")

        // The link recovers: the next probe holds, the limit is lifted and the wait is back to 6 s.
        var recovered = false
        for _ in 0..<120 where !recovered {
            _ = link.run(1, lossPercent: 0)
            recovered = link.machine.layer == 2
        }
        #expect(recovered)
        _ = link.run(6, lossPercent: 0)
        #expect(link.machine.hold == .seconds(6))
        #expect(link.machine.ceiling == nil)
    }

    @Test func theLayerNeverGoesAboveThePreferenceCap() {
        var link = Link(cap: 1)
        #expect(link.machine.layer == 1)
        _ = link.run(1, lossPercent: 40)
        #expect(link.machine.layer == 0)
        let up = link.run(60, lossPercent: 0)
        #expect(up.map(\.action) == [.limit(1)], "probed up to the cap only")
        #expect(link.machine.layer == 1)
        // The preference now allows the full size: the limit found stays until a probe lifts it.
        let widened = link.machine.preference(layers: 3, cap: 2)
        #expect(widened == nil)
        #expect(link.machine.layer == 1)
        let run4 = link.run(20, lossPercent: 0)
        #expect(run4.map(\.action) == [.limit(nil)])
        #expect(link.machine.layer == 2)
        // A lower cap wins at once, whatever the link; loss at the smallest layer changes nothing.
        _ = link.machine.preference(layers: 3, cap: 0)
        #expect(link.machine.layer == 0)
        let run5 = link.run(10, lossPercent: 50)
        #expect(run5.isEmpty)
    }

    @Test func aPreferenceAtOrAboveTheLimitedLayerCountLiftsTheLimit() {
        var link = Link()
        _ = link.run(1, lossPercent: 40)
        #expect(link.machine.ceiling == 1)
        // The stream now has two layers (a smaller announced size): ceiling 1 is its top.
        let narrowed = link.machine.preference(layers: 2, cap: 1)
        #expect(narrowed == .limit(nil))
        #expect(link.machine.layer == 1)
    }

    @Test func aLayerThatArrivesButNoLongerDecodesIsLowered() {
        var machine = SubscriberLayerAdaptation()
        _ = machine.preference(layers: 3, cap: 2)
        let t0 = ContinuousClock.now
        func at(_ second: Int) -> ContinuousClock.Instant { t0 + .seconds(second) }
        // Before the first frame is decoded, packets without frames are the start, not a stall.
        _ = machine.sample(received: 0, lost: 0, decoded: 0, at: at(0))
        let starting = machine.sample(received: 100, lost: 0, decoded: 0, at: at(1))
        #expect(starting == nil)
        let decoding = machine.sample(received: 200, lost: 0, decoded: 15, at: at(2))
        #expect(decoding == nil)
        // Packets keep arriving, nothing lost, not one frame decoded: lowered.
        let stalled = machine.sample(received: 300, lost: 0, decoded: 15, at: at(3))
        #expect(stalled == .limit(1))
        // Without decoding here (nil), the same counters say nothing.
        var encoded = SubscriberLayerAdaptation()
        _ = encoded.preference(layers: 3, cap: 2)
        for second in 0...5 {
            let action = encoded.sample(received: UInt64(second * 100), lost: 0, decoded: nil, at: at(second))
            #expect(action == nil)
        }
    }

    @Test func newCountersStartANewBaseline() {
        var link = Link()
        _ = link.run(5, lossPercent: 0)
        // A new peer connection: counters from zero, with a loss figure of its own; no judgement on that step.
        let now = link.now
        let restarted = link.machine.sample(received: 10, lost: 90, at: now + .seconds(1))
        #expect(restarted == nil)
        #expect(link.machine.layer == 2)
        let next = link.machine.sample(received: 110, lost: 90, at: now + .seconds(2))
        #expect(next == nil, "clean from there")
    }

    @Test func aSubscriberThatLeftDecidesNothingMore() {
        var link = Link()
        _ = link.run(1, lossPercent: 40)
        link.machine.stop()
        let run6 = link.run(30, lossPercent: 60)
        #expect(run6.isEmpty)
        let run7 = link.run(120, lossPercent: 0)
        #expect(run7.isEmpty)
        let after = link.machine.preference(layers: 3, cap: 0)
        #expect(after == nil)
        #expect(link.machine.stopped)
    }
}
