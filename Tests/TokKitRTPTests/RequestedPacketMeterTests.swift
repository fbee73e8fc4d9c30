import Testing
import TokKitRTP

/// The share of our packets the peer asked for again, over the current and the previous 100 ms.
@Suite struct RequestedPacketMeterTests {
    static let ms: UInt64 = 1_000_000

    static func share(_ meter: inout RequestedPacketMeter, at now: UInt64) -> Double? { meter.share(now: now) }

    @Test func theShareIsOverTheCurrentAndThePreviousBucket() {
        var meter = RequestedPacketMeter()
        for i in 0 ..< 9 { meter.packetSent(now: UInt64(i) * 10 * Self.ms) }
        #expect(Self.share(&meter, at: 85 * Self.ms) == nil)  // fewer than 10 packets
        meter.packetSent(now: 90 * Self.ms)
        for _ in 0 ..< 3 { meter.packetRequested(now: 95 * Self.ms) }
        #expect(Self.share(&meter, at: 95 * Self.ms) == 0.3)
        #expect(Self.share(&meter, at: 150 * Self.ms) == 0.3)  // the first bucket is the previous one now
        for i in 0 ..< 10 { meter.packetSent(now: UInt64(100 + i * 10) * Self.ms) }
        #expect(Self.share(&meter, at: 195 * Self.ms) == 0.15)
        #expect(Self.share(&meter, at: 250 * Self.ms) == 0)  // the first bucket is gone
        #expect(Self.share(&meter, at: 450 * Self.ms) == nil)  // two buckets without packets
    }
}
