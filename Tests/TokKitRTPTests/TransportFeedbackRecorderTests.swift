import Testing
import TokKitRTP

@Suite struct TransportFeedbackRecorderTests {
    static let ms: UInt64 = 1_000_000
    /// An arbitrary monotonic clock origin (nanoseconds), not a multiple of 64 ms.
    static let t0: UInt64 = 5_000_123_456_789

    /// Every message the recorder has pending, parsed (bounded).
    static func drain(_ recorder: TransportFeedbackRecorder, bufferLength: Int = 1200) throws
        -> [RTCPTransportWideFeedback] {
        var out: [RTCPTransportWideFeedback] = []
        var buffer = [UInt8](repeating: 0, count: bufferLength)
        for _ in 0 ..< 100 {
            let length = try buffer.withUnsafeMutableBytes {
                try recorder.writeFeedback(senderSSRC: 0xAAAA, mediaSSRC: 0xBBBB, into: $0)
            }
            guard let length else { return out }
            #expect(length <= bufferLength && length % 4 == 0)
            out.append(try RTCPTransportWideFeedback(parsing: Array(buffer.prefix(length))))
        }
        Issue.record("more than 100 messages")
        return out
    }

    /// (sequence number, arrival µs) of every received packet the messages report, in order.
    static func received(_ messages: [RTCPTransportWideFeedback]) -> [(UInt16, Int64)] {
        messages.flatMap { $0.arrivals.compactMap { a in a.microseconds.map { (a.sequenceNumber, $0) } } }
    }

    /// The reported arrival time matches the recorded one to within half a 250 µs tick (no accumulated error);
    /// reported times are on the recorder's clock (monotonic µs modulo the 24-bit reference time's span).
    static func expectArrival(_ reported: Int64, _ recordedNanoseconds: UInt64, _ comment: Comment? = nil) {
        let span = Int64(1 << 24) * 64_000
        let recorded = Int64(recordedNanoseconds / 1000) % span
        #expect(abs(reported - recorded) <= 125, comment)
    }

    @Test func reportsPacketsInOrderWithTheirArrivalTimes() throws {
        let recorder = try TransportFeedbackRecorder()
        #expect(!recorder.hasPendingFeedback)
        var times: [UInt64] = []
        for i in 0 ..< 10 {
            let t = Self.t0 + UInt64(i) * 5 * Self.ms + UInt64(i * 37_000)
            times.append(t)
            recorder.record(100 + UInt16(i), arrivalNanoseconds: t)
        }
        #expect(recorder.hasPendingFeedback)
        let messages = try Self.drain(recorder)
        #expect(messages.count == 1)
        let m = try #require(messages.first)
        #expect(m.senderSSRC == 0xAAAA && m.mediaSSRC == 0xBBBB)
        #expect(m.baseSequenceNumber == 100 && m.statuses.count == 10 && m.feedbackPacketCount == 0)
        #expect(!m.statuses.contains(.notReceived))
        // The reference time is the first arrival rounded down to 64 ms.
        #expect(Int64(m.referenceTime) == Int64(Self.t0 / 1000) / 64_000 % (1 << 24))
        for (i, (seq, us)) in Self.received(messages).enumerated() {
            #expect(seq == 100 + UInt16(i))
            Self.expectArrival(us, times[i], "packet \(i)")
        }
        #expect(!recorder.hasPendingFeedback)
        #expect(try Self.drain(recorder).isEmpty)

        // The next message starts after the last one and counts up.
        recorder.record(110, arrivalNanoseconds: Self.t0 + 60 * Self.ms)
        let next = try Self.drain(recorder)
        #expect(next.map(\.baseSequenceNumber) == [110] && next.first?.feedbackPacketCount == 1)
        #expect(recorder.counters.feedbackMessages == 2 && recorder.counters.recorded == 11)
    }

    @Test func reportsLossesAndReReportsAPacketThatArrivesLate() throws {
        let recorder = try TransportFeedbackRecorder()
        for (seq, ms) in [(0, 0), (1, 5), (2, 10), (5, 20), (6, 25)] as [(UInt16, UInt64)] {
            recorder.record(seq, arrivalNanoseconds: Self.t0 + ms * Self.ms)
        }
        let first = try Self.drain(recorder)
        #expect(first.count == 1)
        #expect(first.first?.statuses.map { $0 == .notReceived } == [false, false, false, true, true, false, false])

        // Packet 3 turns up after the feedback: reported again from 3, received; 4 still lost. Its arrival is
        // after 5's and 6's, so 5's delta is negative (a large delta).
        recorder.record(3, arrivalNanoseconds: Self.t0 + 40 * Self.ms)
        let second = try Self.drain(recorder)
        #expect(second.count == 1)
        let m = try #require(second.first)
        #expect(m.baseSequenceNumber == 3)
        #expect(m.statuses.map { $0 == .notReceived } == [false, true, false, false])
        guard case .receivedLargeDelta(let d) = m.statuses[2] else {
            Issue.record("packet 5 should carry a large (negative) delta: \(m.statuses)")
            return
        }
        #expect(d == -80)  // 20 ms before packet 3, in 250 µs ticks
        let arrivals = Self.received(second)
        #expect(arrivals.map(\.0) == [3, 5, 6])
        Self.expectArrival(arrivals[0].1, Self.t0 + 40 * Self.ms)
        Self.expectArrival(arrivals[1].1, Self.t0 + 20 * Self.ms)
        Self.expectArrival(arrivals[2].1, Self.t0 + 25 * Self.ms)
    }

    @Test func followsTheSequenceNumberWrapAndReordering() throws {
        let recorder = try TransportFeedbackRecorder()
        // 65530 ... 65535, 0 ... 5, with 65535 and 0 swapped on the wire.
        let order: [UInt16] = [65530, 65531, 65532, 65533, 65534, 0, 65535, 1, 2, 3, 4, 5]
        var times: [UInt16: UInt64] = [:]
        for (i, seq) in order.enumerated() {
            let t = Self.t0 + UInt64(i) * 3 * Self.ms
            times[seq] = t
            recorder.record(seq, arrivalNanoseconds: t)
        }
        let messages = try Self.drain(recorder)
        #expect(messages.count == 1)
        #expect(messages.first?.baseSequenceNumber == 65530 && messages.first?.statuses.count == 12)
        let arrivals = Self.received(messages)
        #expect(arrivals.map(\.0) == (0 ..< 12).map { 65530 &+ UInt16($0) })
        for (seq, us) in arrivals { Self.expectArrival(us, times[seq]!, "seq \(seq)") }
        // A duplicate is counted, not reported again.
        recorder.record(5, arrivalNanoseconds: Self.t0 + 100 * Self.ms)
        #expect(recorder.counters.duplicates == 1 && !recorder.hasPendingFeedback)
    }

    @Test func aDeltaTooLargeForSixteenBitsStartsANewMessage() throws {
        let recorder = try TransportFeedbackRecorder()
        recorder.record(7, arrivalNanoseconds: Self.t0)
        recorder.record(8, arrivalNanoseconds: Self.t0 + 2 * Self.ms)
        recorder.record(9, arrivalNanoseconds: Self.t0 + 10_000 * Self.ms)  // 10 s later: beyond ±8.19 s
        let messages = try Self.drain(recorder)
        #expect(messages.map(\.baseSequenceNumber) == [7, 9])
        #expect(messages.map(\.statuses.count) == [2, 1])
        #expect(messages.map(\.feedbackPacketCount) == [0, 1])
        let arrivals = Self.received(messages)
        Self.expectArrival(arrivals[1].1, Self.t0 + 2 * Self.ms)
        Self.expectArrival(arrivals[2].1, Self.t0 + 10_000 * Self.ms)
    }

    @Test func splitsABurstAcrossMessagesThatFitTheBuffer() throws {
        let recorder = try TransportFeedbackRecorder()
        // 3001 packets, every 7th lost, deltas alternating small and large: more than one 300-byte message.
        var times: [UInt16: UInt64] = [:]
        var t = Self.t0
        for i in 0 ... 3000 where i % 7 != 3 {
            t += i % 2 == 0 ? 1 * Self.ms : 70 * Self.ms
            let seq = UInt16(truncatingIfNeeded: 64000 + i)
            times[seq] = t
            recorder.record(seq, arrivalNanoseconds: t)
        }
        let messages = try Self.drain(recorder, bufferLength: 300)
        #expect(messages.count > 5)
        // Contiguous: each message starts where the previous ended, and together they cover every number once.
        var expected: UInt16 = 64000
        for m in messages {
            #expect(m.baseSequenceNumber == expected)
            expected = m.baseSequenceNumber &+ UInt16(m.statuses.count)
        }
        #expect(messages.reduce(0) { $0 + $1.statuses.count } == 3001)
        let arrivals = Self.received(messages)
        #expect(arrivals.count == times.count)
        for (seq, us) in arrivals { Self.expectArrival(us, times[seq]!, "seq \(seq)") }
    }

    @Test func boundsGapsAndDropsPacketsOlderThanTheRing() throws {
        let recorder = try TransportFeedbackRecorder(capacity: 16)
        recorder.record(10, arrivalNanoseconds: Self.t0)
        _ = try Self.drain(recorder)
        // A jump of 100 numbers: only the last 16 are described, the packet and the 15 "not received" before it.
        recorder.record(110, arrivalNanoseconds: Self.t0 + 5 * Self.ms)
        let messages = try Self.drain(recorder)
        #expect(messages.map(\.baseSequenceNumber) == [95])
        #expect(messages.first?.statuses.filter { $0 == .notReceived }.count == 15)
        // A packet more than 16 behind the highest is dropped and counted.
        recorder.record(90, arrivalNanoseconds: Self.t0 + 6 * Self.ms)
        #expect(recorder.counters.tooOld == 1 && !recorder.hasPendingFeedback)
        // A late packet inside the ring is reported again.
        recorder.record(100, arrivalNanoseconds: Self.t0 + 7 * Self.ms)
        #expect(try Self.drain(recorder).map(\.baseSequenceNumber) == [100])

        #expect(throws: RTPError.valueOutOfRange(field: "transport feedback recorder capacity", value: 100)) {
            _ = try TransportFeedbackRecorder(capacity: 100)
        }
        var small = [UInt8](repeating: 0, count: 23)
        recorder.record(111, arrivalNanoseconds: Self.t0 + 8 * Self.ms)
        #expect(throws: RTPError.bufferTooSmall(needed: 24, available: 23)) {
            _ = try small.withUnsafeMutableBytes { try recorder.writeFeedback(senderSSRC: 1, mediaSSRC: 2, into: $0) }
        }
        recorder.reset()
        #expect(!recorder.hasPendingFeedback)
    }
}
