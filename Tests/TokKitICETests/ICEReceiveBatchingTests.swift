import Foundation
import Synchronization
import Testing
import TokKitICE
import TokKitICETestSupport

/// Receive batching made safe: true arrival times and a sleep that work ends (issue 16).
@Suite(.serialized) struct ICEReceiveBatchingTests {
    /// CLOCK_MONOTONIC in nanoseconds (the clock ``ICEAgent/receivedDatagramArrival`` is on).
    static func monotonic() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// 40 datagrams sent 10 ms apart to an agent batching its reads every 40 ms: they are delivered several at a time,
    /// but each comes with its own arrival time (the kernel's stamp): between its send and its delivery, spaced as
    /// sent within one wake-up's deliveries (not bunched at the wake-up), never going back. Without batching the
    /// agent gives none.
    @Test func batchedDatagramsKeepTheirArrivalTimes() async throws {
        var configuration = ICEConfiguration.loopback
        configuration.receiveBatching = .milliseconds(40)
        let pair = try AgentPair(configuration: configuration)
        struct Delivery { let index: UInt8; let arrival: UInt64?; let delivered: UInt64 }
        let deliveries = Mutex<[Delivery]>([])
        let controlled = pair.controlled
        controlled.setReceiveHandler { bytes in
            let delivered = Self.monotonic()
            let arrival = controlled.receivedDatagramArrival
            deliveries.withLock {
                if $0.count < 1_000, let first = bytes.first {
                    $0.append(Delivery(index: first, arrival: arrival, delivered: delivered))
                }
            }
        }
        pair.controlling.setReceiveHandler { _ in }
        #expect(pair.controlling.receivedDatagramArrival == nil, "nothing outside a receive handler")
        try pair.start()
        #expect(await eventually { pair.bothConnected() }, "both agents reach connected")

        var sent: [UInt64] = []
        for i in 0..<40 {
            sent.append(Self.monotonic())
            try [UInt8(i), 1, 2, 3].withUnsafeBytes { try pair.controlling.send($0) }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(await eventually { deliveries.withLock { $0.count } == 40 }, "every datagram arrives")
        let got = deliveries.withLock { $0 }
        #expect(got.map(\.index) == (0..<40).map { UInt8($0) }, "in order")
        guard got.count == 40 else { await pair.close(); return }
        let arrivals = got.compactMap(\.arrival)
        #expect(arrivals.count == 40, "every delivery has an arrival time")
        guard arrivals.count == 40 else { await pair.close(); return }
        for (i, d) in got.enumerated() {
            // (1 ms of slack: the stamp is mapped from the real-time clock to the monotonic one.)
            #expect(arrivals[i] + 1_000_000 >= sent[i] && arrivals[i] <= d.delivered,
                    "datagram \(i): sent \(sent[i]), arrival \(arrivals[i]), delivered \(d.delivered)")
        }
        #expect(zip(arrivals, arrivals.dropFirst()).allSatisfy { $0 <= $1 }, "arrival times never go back")
        // Pairs delivered in one wake-up (under 2 ms apart) whose send times were at least 5 ms apart.
        var together = 0, spaced = 0, late = 0
        for i in 1..<40 where got[i].delivered - got[i - 1].delivered < 2_000_000 && sent[i] - sent[i - 1] >= 5_000_000 {
            together += 1
            if arrivals[i] - arrivals[i - 1] >= 5_000_000 { spaced += 1 }
        }
        for i in 0..<40 where got[i].delivered - arrivals[i] >= 5_000_000 { late += 1 }
        #expect(together >= 10, "batching delivered datagrams together (\(together) pairs)")
        #expect(spaced * 10 >= together * 9, "\(spaced) of \(together) pairs delivered together keep their spacing")
        let statistics = controlled.receiveStatistics
        #expect(statistics.kernelTimedDatagrams >= 38, "\(statistics)")
        #expect(statistics.batchingSleeps > 0)
        print("arrival times: \(together) pairs delivered together, \(spaced) spaced as sent; \(late) of 40 read",
              "5 ms or more after they arrived; \(statistics)")
        await pair.close()
    }

    /// Without batching no arrival time is given (the clock at the handler is the arrival).
    @Test func noArrivalTimesWithoutBatching() async throws {
        let pair = try AgentPair()
        let seen = Mutex<[UInt64?]>([])
        let controlled = pair.controlled
        controlled.setReceiveHandler { _ in
            let arrival = controlled.receivedDatagramArrival
            seen.withLock { $0.append(arrival) }
        }
        pair.controlling.setReceiveHandler { _ in }
        try pair.start()
        #expect(await eventually { pair.bothConnected() }, "both agents reach connected")
        for i in 0..<5 { try [UInt8(i)].withUnsafeBytes { try pair.controlling.send($0) } }
        #expect(await eventually { seen.withLock { $0.count } == 5 }, "every datagram arrives")
        #expect(seen.withLock { $0 }.allSatisfy { $0 == nil })
        #expect(controlled.receiveStatistics == ICEReceiveStatistics())
        await pair.close()
    }

    /// An agent batching every second, with datagrams coming every 50 ms, spends nearly all its time in the batching
    /// sleep: work handed to its thread (``ICEAgent/perform(_:)``) and its close end that sleep (the counter of sleeps
    /// ended by the wakeup grows), and close completes.
    @Test func workAndCloseEndTheBatchingSleep() async throws {
        var configuration = ICEConfiguration.loopback
        configuration.receiveBatching = .seconds(1)
        let pair = try AgentPair(configuration: configuration)
        let controlled = pair.controlled
        controlled.setReceiveHandler { _ in }
        pair.controlling.setReceiveHandler { _ in }
        try pair.start()
        #expect(await eventually { pair.bothConnected() }, "both agents reach connected")
        let sender = Task {
            while !Task.isCancelled {
                try? [UInt8(1)].withUnsafeBytes { try pair.controlling.send($0) }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        try await Task.sleep(for: .milliseconds(1_500))

        let ran = Atomic<Int>(0)
        let beforeWork = controlled.receiveStatistics
        controlled.perform { ran.add(1, ordering: .relaxed) }
        #expect(await eventually(within: .seconds(10)) { ran.load(ordering: .relaxed) == 1 }, "the work ran")
        let afterWork = controlled.receiveStatistics
        #expect(afterWork.sleepsEndedByWakeup > beforeWork.sleepsEndedByWakeup,
                "the work ended a sleep: \(beforeWork) → \(afterWork)")

        try await Task.sleep(for: .milliseconds(500))
        let beforeClose = controlled.receiveStatistics
        let started = ContinuousClock.now
        let closed = Atomic<Bool>(false)
        Thread.detachNewThread {
            controlled.close()
            closed.store(true, ordering: .releasing)
        }
        #expect(await eventually(within: .seconds(10)) { closed.load(ordering: .acquiring) }, "close completes")
        let took = ContinuousClock.now - started
        let afterClose = controlled.receiveStatistics
        #expect(afterClose.sleepsEndedByWakeup > beforeClose.sleepsEndedByWakeup,
                "closing ended a sleep: \(beforeClose) → \(afterClose)")
        print("batching 1 s: work ran and close took \(took); \(afterClose)")
        sender.cancel()
        await pair.close()
    }
}
