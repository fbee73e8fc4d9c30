import Testing
import TokKitRTP

@Suite struct NACKGeneratorTests {
    static let ms: UInt64 = 1_000_000

    @Test func gapsArePendingAtOnceThenRetriedEveryIntervalUntilRecovered() throws {
        let nack = try NACKGenerator(.init(retryInterval: 20 * Self.ms))
        #expect(nack.observe(65533, now: 0) == .inOrder)
        #expect(nack.observe(65534, now: 0) == .inOrder)
        #expect(nack.observe(2, now: 1 * Self.ms) == .gap(3))  // 65535, 0, 1 across the wrap
        #expect(Array(nack.pending(now: 1 * Self.ms)) == [65535, 0, 1])
        #expect(Array(nack.pending(now: 5 * Self.ms)).isEmpty)  // not again before the retry interval
        #expect(nack.observe(0, now: 6 * Self.ms) == .recovered)
        #expect(nack.observe(0, now: 6 * Self.ms) == .duplicate)
        #expect(Array(nack.pending(now: 21 * Self.ms)) == [65535, 1])
        #expect(nack.observe(65535, now: 22 * Self.ms) == .recovered)
        #expect(nack.observe(1, now: 22 * Self.ms) == .recovered)
        #expect(nack.missingCount == 0 && Array(nack.pending(now: 100 * Self.ms)).isEmpty)
        #expect(nack.counters.missing == 3 && nack.counters.recovered == 3 && nack.counters.requested == 5)
        // The list feeds an RTCP NACK as is.
        _ = nack.observe(10, now: 100 * Self.ms)
        let lost = nack.pending(now: 100 * Self.ms)
        var out = [UInt8](repeating: 0, count: 64)
        let n = try out.withUnsafeMutableBytes {
            try RTCPGenericNACK.write(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: lost, into: $0)
        }
        #expect(try RTCPGenericNACK(parsing: Array(out.prefix(n))).lostSequenceNumbers == Array(3...9))
    }

    @Test func retriesAndAgeAreBounded() throws {
        let nack = try NACKGenerator(.init(maximumRetries: 3, retryInterval: 10 * Self.ms, maximumAge: 1000 * Self.ms))
        _ = nack.observe(1, now: 0)
        _ = nack.observe(3, now: 0)
        var requests = 0
        for step in 0..<10 { requests += nack.pending(now: UInt64(step) * 10 * Self.ms).count }
        #expect(requests == 3 && nack.missingCount == 0 && nack.counters.expired == 1)

        _ = nack.observe(5, now: 0)  // 4 missing
        #expect(nack.pending(now: 0).count == 1)
        #expect(nack.pending(now: 1001 * Self.ms).count == 0)  // too old
        #expect(nack.missingCount == 0)
    }

    @Test func theQuickRequestsAreFollowedByLateOnesUntilTheLast() throws {
        let nack = try NACKGenerator(.init(maximumRetries: 6, retryInterval: 20 * Self.ms, quickRequests: 3,
                                           lateRetryInterval: 100 * Self.ms))
        _ = nack.observe(1, now: 0)
        _ = nack.observe(3, now: 0)
        var times: [UInt64] = []
        for ms in stride(from: UInt64(0), through: 1_000, by: 5) where !nack.pending(now: ms * Self.ms).isEmpty {
            times.append(ms)
        }
        #expect(times == [0, 20, 40, 140, 240, 340])
        #expect(nack.missingCount == 0 && nack.counters.expired == 1 && nack.counters.requested == 6)
    }

    @Test func theListIsBoundedAndAHugeGapOverflows() throws {
        let nack = try NACKGenerator(.init(capacity: 8))
        _ = nack.observe(0, now: 0)
        #expect(nack.observe(6, now: 0) == .gap(5))
        #expect(nack.observe(12, now: 0) == .gap(5))  // 10 missing, 8 kept: the 2 oldest dropped
        #expect(nack.missingCount == 8 && Array(nack.pending(now: 0)).first == 3)
        #expect(nack.observe(100, now: 0) == .overflow(87))
        #expect(nack.missingCount == 0)
        #expect(nack.observe(101, now: 0) == .inOrder)
        #expect(throws: RTPError.self) { try NACKGenerator(.init(capacity: 0)) }
    }
}
