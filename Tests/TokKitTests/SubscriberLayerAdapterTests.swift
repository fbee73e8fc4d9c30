import Synchronization
import Testing
import TokKitProtocol

@testable import TokKit

/// The adapter that runs a routed subscriber's ``SubscriberLayerAdaptation``: layer sizes, the preference's cap, its
/// sampling task's lifetime.
@Suite struct SubscriberLayerAdapterTests {
    /// The adapter maps layers to the stream's sizes and asks for the limit's size, never above the preference.
    @Test func theAdapterAsksForTheLimitedLayersSize() {
        let clock = TestInstant()
        let adapter = SubscriberLayerAdapter(now: { clock.now })
        adapter.update(published: VideoDimensions(width: 640, height: 360), preferred: nil)
        func tick(_ received: UInt64, _ lost: Int64) -> Bool? {
            clock.advance(.seconds(1))
            return adapter.sample(received: received, lost: lost)
        }
        #expect(tick(100, 0) == nil, "idle: not sampling before start")
        // Sampling as `start` would begin it, without its task (driven here).
        #expect(adapter.begin())
        #expect(tick(100, 0) == false)
        #expect(tick(150, 50) == true)
        #expect(adapter.limit == VideoDimensions(width: 320, height: 180))
        #expect(adapter.effectiveResolution(nil) == VideoDimensions(width: 320, height: 180))
        #expect(adapter.effectiveResolution(VideoDimensions(width: 160, height: 90)) == VideoDimensions(width: 160, height: 90),
                "a preference below the limit is sent as it is")
        #expect(adapter.effectiveResolution(VideoDimensions(width: 1280, height: 720)) == VideoDimensions(width: 320, height: 180))
        adapter.update(published: VideoDimensions(width: 640, height: 360), preferred: VideoDimensions(width: 200, height: 200))
        #expect(adapter.limit == nil, "the preference (160x90) is below the limit: nothing to lower")
        adapter.stop()
        #expect(tick(200, 150) == nil)
        #expect(adapter.phase == .stopped)
    }

    @Test func aStreamWithoutAnnouncedSizeDoesNotAdapt() {
        let clock = TestInstant()
        let adapter = SubscriberLayerAdapter(now: { clock.now })
        adapter.update(published: nil, preferred: nil)
        #expect(adapter.begin())
        for i in 1...10 {
            clock.advance(.seconds(3))
            #expect(adapter.sample(received: UInt64(i * 50), lost: Int64(i * 50)) == false)
        }
        #expect(adapter.limit == nil)
    }

    /// A new announced size maps the limit in force to the same layer of the new sizes.
    @Test func aNewAnnouncedSizeKeepsTheLimitsLayerInTheNewSizes() {
        let clock = TestInstant()
        let adapter = SubscriberLayerAdapter(now: { clock.now })
        adapter.update(published: VideoDimensions(width: 640, height: 360), preferred: nil)
        #expect(adapter.begin())
        clock.advance(.seconds(1))
        #expect(adapter.sample(received: 100, lost: 0) == false)
        clock.advance(.seconds(1))
        #expect(adapter.sample(received: 150, lost: 50) == true)
        #expect(adapter.limit == VideoDimensions(width: 320, height: 180))
        adapter.update(published: VideoDimensions(width: 1280, height: 720), preferred: nil)
        #expect(adapter.limit == VideoDimensions(width: 640, height: 360))
        #expect(adapter.effectiveResolution(nil) == VideoDimensions(width: 640, height: 360))
    }

    /// A new announced size with fewer layers can lift the limit: `update` says so (the subscriber then sends its
    /// preferences again, without the limit).
    @Test func aSmallerAnnouncedSizeCanLiftTheLimit() {
        let clock = TestInstant()
        let adapter = SubscriberLayerAdapter(now: { clock.now })
        adapter.update(published: VideoDimensions(width: 640, height: 360), preferred: nil)
        #expect(adapter.begin())
        clock.advance(.seconds(1))
        #expect(adapter.sample(received: 100, lost: 0) == false)
        clock.advance(.seconds(1))
        #expect(adapter.sample(received: 150, lost: 50) == true)
        #expect(adapter.limit == VideoDimensions(width: 320, height: 180))
        let lifted = adapter.update(published: VideoDimensions(width: 320, height: 240), preferred: nil)
        #expect(lifted)
        #expect(adapter.limit == nil)
        #expect(adapter.effectiveResolution(nil) == nil)
    }

    /// The sampling task of a routed subscription ends when the subscription ends, although the app keeps the
    /// ``Subscriber`` (it used to wake once a second for as long as the Subscriber lived: without a peer it skipped
    /// the check that ends it).
    @Test func theSamplingTaskEndsWithTheSubscription() async throws {
        var stream = SubscriberTests.stream
        stream.videoDimensions = VideoDimensions(width: 640, height: 360)
        let subscriber = Subscriber(stream: stream)
        subscriber.routedOfferArrived()
        let task = try #require(subscriber.layerAdapter.samplingTask)
        #expect(subscriber.layerAdapter.phase == .sampling)
        _ = subscriber.end()
        let ended = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await task.value; return true }
            group.addTask { try? await Task.sleep(for: .seconds(5)); return false }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(ended, "the sampling task still runs 5 s after the subscription ended")
        #expect(subscriber.layerAdapter.phase == .stopped)
        subscriber.routedOfferArrived()
        #expect(subscriber.layerAdapter.phase == .stopped, "an ended subscription never samples again")
    }
}

/// A time that moves only when told.
final class TestInstant: Sendable {
    private let instant = Mutex(ContinuousClock.now)
    var now: ContinuousClock.Instant { instant.withLock { $0 } }
    func advance(_ by: Duration) { instant.withLock { $0 += by } }
}
