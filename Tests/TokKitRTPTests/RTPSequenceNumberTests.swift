import Testing
import TokKitRTP

@Suite struct RTPSequenceNumberTests {
    @Test func newerThanAcrossTheWrap() {
        #expect(RTPSequenceNumber.isNewer(UInt16(1), than: 0))
        #expect(RTPSequenceNumber.isNewer(UInt16(0), than: 65535))
        #expect(!RTPSequenceNumber.isNewer(UInt16(65535), than: 0))
        #expect(!RTPSequenceNumber.isNewer(UInt16(5), than: 5))
        // Exactly half apart: one of the two directions, never both.
        #expect(RTPSequenceNumber.isNewer(UInt16(0x8000), than: 0) != RTPSequenceNumber.isNewer(UInt16(0), than: 0x8000))
        #expect(RTPSequenceNumber.isNewer(UInt32(0), than: .max))
        #expect(!RTPSequenceNumber.isNewer(UInt32.max, than: 0))
        #expect(RTPSequenceNumber.distance(from: 65535, to: 2) == 3)
        #expect(RTPSequenceNumber.distance(from: 2, to: 65535) == -3)
    }

    @Test func unwrapsSequenceNumbersWithReordering() {
        var u = SequenceNumberUnwrapper()
        let input: [UInt16] = [65533, 65535, 0, 65534, 1, 2, 32768 + 1, 3]
        #expect(input.map { u.unwrap($0) } == [65533, 65535, 65536, 65534, 65537, 65538, 65536 + 32769, 65539])
        // Going backwards past zero stays below zero.
        var back = SequenceNumberUnwrapper()
        #expect([UInt16(1), 65535].map { back.unwrap($0) } == [1, -1])
    }

    @Test func unwrapsTimestampsOverManyCycles() {
        var u = TimestampUnwrapper()
        var timestamp = UInt32.max - 3000
        var expected = Int64(timestamp)
        #expect(u.unwrap(timestamp) == expected)
        for _ in 0 ..< 1000 {  // steps of 30 M ticks until the timestamp wrapped three times
            timestamp &+= 3000 * 10_000
            expected += 3000 * 10_000
            #expect(u.unwrap(timestamp) == expected)
            if expected > Int64(UInt32.max) * 3 { break }
        }
        #expect(expected > Int64(UInt32.max) * 3)
        #expect(u.unwrap(timestamp &- 90_000) == expected - 90_000)  // a late frame
    }
}
