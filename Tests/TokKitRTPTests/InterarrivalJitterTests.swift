import Testing
import TokKitRTP

@Suite struct InterarrivalJitterTests {
    @Test func constantTransitHasNoJitter() {
        var j = InterarrivalJitter()
        for i in 0 ..< 100 { j.update(rtpTimestamp: UInt32(i * 3000), arrival: UInt32(i * 3000 + 777)) }
        #expect(j.value == 0)
    }

    @Test func followsTheA8Recurrence() {
        var j = InterarrivalJitter()
        j.update(rtpTimestamp: 0, arrival: 1000)
        j.update(rtpTimestamp: 3000, arrival: 4160)  // D = 160: J = 160 / 16
        #expect(j.value == 10)
        // Alternating ±160 converges to 160 (within the integer rounding of A.8).
        for i in 2 ..< 400 { j.update(rtpTimestamp: UInt32(i * 3000), arrival: UInt32(i * 3000 + 1000 + (i % 2) * 160)) }
        #expect((159 ... 160).contains(j.value))
    }

    @Test func survivesBothClocksWrapping() {
        var j = InterarrivalJitter()
        var ts = UInt32.max - 5000
        var arrival = UInt32(123)
        for _ in 0 ..< 10 {
            j.update(rtpTimestamp: ts, arrival: arrival)
            ts &+= 3000
            arrival &+= 3000
        }
        #expect(j.value == 0)
    }
}
