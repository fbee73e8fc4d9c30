import Testing
import TokKitRTP

/// The send rate of one kind of packets over about the last second.
@Suite struct SendRateMeterTests {
    /// 50 packets a second of 250 bytes (100 kb/s): the rate reads about 100 kb/s from the first 100 ms on, in the
    /// middle of a bucket as at its end, follows a change within a second, and falls to zero after a second
    /// without packets; it starts afresh after that.
    @Test func followsAPacketStreamAndForgetsASilence() {
        var meter = SendRateMeter()
        #expect(meter.bitsPerSecond(now: 0) == 0)
        var now: Int64 = 1_000_000
        var readings: [Int] = []
        for i in 0 ..< 100 {  // 2 s at 100 kb/s, read after every packet from the sixth on
            meter.add(250, now: now)
            now += 20_000
            if i >= 5 { readings.append(meter.bitsPerSecond(now: now)) }
        }
        #expect(readings.allSatisfy { abs($0 - 100_000) <= 5_000 }, "\(readings)")
        for _ in 0 ..< 75 {  // 1.5 s at 50 kb/s (125 bytes)
            meter.add(125, now: now)
            now += 20_000
        }
        #expect(abs(meter.bitsPerSecond(now: now) - 50_000) <= 2_500, "\(meter.bitsPerSecond(now: now))")
        #expect(meter.bitsPerSecond(now: now + 1_000_000) == 0)
        now += 3_000_000
        for _ in 0 ..< 10 {  // after the silence: 200 ms at 100 kb/s read as such, not diluted by a stale bucket
            meter.add(250, now: now)
            now += 20_000
        }
        #expect(abs(meter.bitsPerSecond(now: now) - 100_000) <= 5_000, "\(meter.bitsPerSecond(now: now))")
    }
}
