import Testing
@testable import TokKitServer

/// Placement of routed sessions over Janus instances (Docs/Routing.md, "Placement"): pure, hand-worked, the time
/// given explicitly.
@Suite("Routed media placement") struct RoutedMediaPlacementTests {
    let t0 = ContinuousClock.now

    @Test func theLeastLoadedInstanceComesFirstTiesInConfigurationOrder() {
        var placement = RoutedMediaPlacement(count: 3)
        #expect(placement.candidates(now: t0) == [0, 1, 2], "none loaded: configuration order")
        placement.placed(on: 0)
        #expect(placement.candidates(now: t0) == [1, 2, 0])
        placement.placed(on: 1)
        placement.placed(on: 1)
        // loads 1, 2, 0
        #expect(placement.candidates(now: t0) == [2, 0, 1])
        placement.placed(on: 2)
        // loads 1, 2, 1: 0 and 2 tie, 0 first
        #expect(placement.candidates(now: t0) == [0, 2, 1])
        placement.released(from: 1)
        placement.released(from: 1)
        // loads 1, 0, 1
        #expect(placement.candidates(now: t0) == [1, 0, 2])
        placement.released(from: 1)  // never below zero
        #expect(placement.instances.map(\.load) == [1, 0, 1])
    }

    /// Load is weight: sessions plus their handles (streams and subscriptions). One session of one publisher and
    /// six subscribers outweighs two small calls; ties still go to configuration order.
    @Test func loadCountsStreamsAndSubscriptionsNotJustSessions() {
        var placement = RoutedMediaPlacement(count: 2)
        placement.placed(on: 0)  // one large session: 1 stream + 6 subscriptions
        placement.placed(on: 1)  // two calls of 1 stream + 1 subscription
        placement.placed(on: 1)
        placement.setHandles([7, 4])
        #expect(placement.instances.map(\.load) == [8, 6])
        #expect(placement.candidates(now: t0) == [1, 0], "the instance with more sessions but fewer handles first")
        // Counted by sessions only, 0 would have come first.
        placement.setHandles([0, 0])
        #expect(placement.candidates(now: t0) == [0, 1])
        // Equal weights: configuration order.
        placement.setHandles([5, 4])
        #expect(placement.instances.map(\.load) == [6, 6])
        #expect(placement.candidates(now: t0) == [0, 1])
        // Handles counted per index; missing indices and negative counts count none.
        placement.setHandles([-3])
        #expect(placement.instances.map(\.handles) == [0, 0])
        #expect(placement.instances.map(\.load) == [1, 2])
        // Releasing sessions leaves the handles as last given (the next setHandles brings them up to date).
        placement.setHandles([2, 0])
        placement.released(from: 0)
        #expect(placement.instances.map(\.load) == [2, 2])
        #expect(placement.candidates(now: t0) == [0, 1])
    }

    @Test func twoSessionsSpreadOverTwoInstances() {
        var placement = RoutedMediaPlacement(count: 2)
        var chosen: [Int] = []
        for _ in 0..<4 {
            let index = placement.candidates(now: t0)[0]
            placement.placed(on: index)
            chosen.append(index)
        }
        #expect(chosen == [0, 1, 0, 1])
    }

    @Test func anUnreachableInstanceIsSkippedWhileDownWithADoublingBoundedBackoff() {
        var placement = RoutedMediaPlacement(count: 2)
        placement.markUnreachable(0, now: t0)
        // Down 1 s: skipped although it is the least loaded.
        placement.placed(on: 1)
        #expect(placement.candidates(now: t0) == [1])
        #expect(placement.candidates(now: t0 + .milliseconds(999)) == [1])
        #expect(placement.candidates(now: t0 + .seconds(1)) == [0, 1], "up again after its first backoff")
        // Failing again in a row: 2 s, then 4 s, ... at most 30 s.
        placement.markUnreachable(0, now: t0 + .seconds(1))
        #expect(!placement.isUp(0, now: t0 + .milliseconds(2_999)))
        #expect(placement.isUp(0, now: t0 + .seconds(3)))
        placement.markUnreachable(0, now: t0 + .seconds(3))
        #expect(!placement.isUp(0, now: t0 + .milliseconds(6_999)))
        #expect(placement.isUp(0, now: t0 + .seconds(7)))
        for _ in 0..<20 { placement.markUnreachable(0, now: t0) }  // 23 failures in a row: capped
        #expect(!placement.isUp(0, now: t0 + .milliseconds(29_999)))
        #expect(placement.isUp(0, now: t0 + .seconds(30)))
        // One success resets the count: the next failure is 1 s again.
        placement.markReachable(0)
        #expect(placement.isUp(0, now: t0))
        placement.markUnreachable(0, now: t0)
        #expect(placement.isUp(0, now: t0 + .seconds(1)))
    }

    @Test func aLostInstanceStaysDownAtLeastTheLostBackoff() {
        var placement = RoutedMediaPlacement(count: 2)
        placement.markUnreachable(1, now: t0, atLeast: RoutedMediaPlacement.lostBackoff)
        #expect(!placement.isUp(1, now: t0 + .seconds(9)))
        #expect(placement.isUp(1, now: t0 + .seconds(10)))
        #expect(placement.hasUpInstance(besides: 1, now: t0))
        #expect(!placement.hasUpInstance(besides: 0, now: t0 + .seconds(5)), "1 is down, 0 is the one lost")
    }

    @Test func withEveryInstanceDownOnlyTheOneBackSoonestIsTried() {
        var placement = RoutedMediaPlacement(count: 3)
        placement.markUnreachable(0, now: t0 + .seconds(2))  // down until t0+3
        placement.markUnreachable(1, now: t0)  // until t0+1
        placement.markUnreachable(2, now: t0)  // until t0+1: ties with 1, 1 first
        #expect(placement.candidates(now: t0) == [1], "one attempt, not every instance")
        #expect(placement.candidates(now: t0 + .seconds(1)) == [1, 2])
        // One instance, down: still tried at each placement (the behaviour of a single-instance server).
        var single = RoutedMediaPlacement(count: 1)
        single.markUnreachable(0, now: t0, atLeast: .seconds(10))
        #expect(single.candidates(now: t0) == [0])
        #expect(!single.hasUpInstance(besides: 0, now: t0))
        #expect(RoutedMediaPlacement(count: 0).candidates(now: t0).isEmpty)
    }
}
