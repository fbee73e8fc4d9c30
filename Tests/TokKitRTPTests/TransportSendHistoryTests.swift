import Testing
import TokKitRTP

@Suite struct TransportSendHistoryTests {
    @Test func matchesFeedbackAcrossTheWrapAndIgnoresUnknownOrRepeatedNumbers() throws {
        let history = try TransportSendHistory(capacity: 64)
        // Sent: 65530 ... 65535, 0 ... 9 (16 packets across the wrap), 1 ms apart, size 100 + i.
        for i in 0 ..< 16 {
            history.record(65530 &+ UInt16(i), sendTime: 1_000 * Int64(i), size: 100 + i)
        }
        // Feedback from 65528 (two numbers we never sent) through 11 (two more): 65531 and 3 lost.
        var statuses: [RTCPTransportWideFeedback.PacketStatus] = []
        for i in 0 ..< 20 {
            let sequence = 65528 &+ UInt16(i)
            statuses.append(sequence == 65531 || sequence == 3 ? .notReceived : .receivedSmallDelta(8))  // 2 ms
        }
        let feedback = RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 65528,
                                                 referenceTime: 10, feedbackPacketCount: 0, statuses: statuses)
        var results: [TransportPacketResult] = []
        history.results(for: feedback, into: &results)
        #expect(results.count == 16)
        #expect(results.map(\.sequenceNumber) == (0 ..< 16).map { 65530 &+ UInt16($0) })
        #expect(results.map(\.size) == (0 ..< 16).map { 100 + $0 })
        #expect(results.map(\.sendTime) == (0 ..< 16).map { 1_000 * Int64($0) })
        #expect(results.filter { $0.arrivalTime == nil }.map(\.sequenceNumber) == [65531, 3])
        // Reference 10 × 64 ms; the n-th received packet of the message (counting the unknown ones) arrives
        // n × 2 ms later: 65530 is the third received status.
        let firstArrival: Int64 = try #require(results.first?.arrivalTime)
        #expect(firstArrival == 646_000)
        #expect(history.unknownReports == 4)

        // The same feedback again: every packet was already taken.
        var again: [TransportPacketResult] = []
        history.results(for: feedback, into: &again)
        #expect(again.isEmpty)
        #expect(history.unknownReports == 24)
    }

    @Test func forgetsPacketsOlderThanItsCapacity() throws {
        let history = try TransportSendHistory(capacity: 16)
        for i in 0 ..< 40 { history.record(UInt16(i), sendTime: Int64(i), size: 1) }
        #expect(history.take(23) == nil)  // overwritten by 39
        #expect(history.take(24)?.sendTime == 24)
        #expect(history.take(39)?.sendTime == 39)
        #expect(history.take(40) == nil)  // never sent
        #expect(history.recorded == 40)
        #expect(throws: RTPError.self) { try TransportSendHistory(capacity: 8) }
    }
}
