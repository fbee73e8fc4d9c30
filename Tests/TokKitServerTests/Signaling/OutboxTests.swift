import NIOCore
import NIOWebSocket
import Synchronization
import Testing
@testable import TokKitServer

/// The outbox is bounded by bytes as well as by message count (issue 17, item 5).
@Suite struct OutboxTests {
    @Test func overTheByteBudgetItOverflowsOnceAndClosesWithOutboxFull() {
        let overflows = Mutex(0), dropped = Mutex(0)
        let outbox = Outbox(capacity: 1_000, maxBytes: 1_000) { count in
            overflows.withLock { $0 += 1 }
            dropped.withLock { $0 += count }
        }
        #expect(outbox.send([UInt8](repeating: 1, count: 600)))
        #expect(outbox.send([UInt8](repeating: 1, count: 400)))  // exactly the budget
        #expect(outbox.queuedBytes == 1_000)
        #expect(!outbox.send([1]))
        #expect(outbox.isOverflowed && outbox.closeCode == .outboxOverflow)
        #expect(outbox.closeCode.webSocketCode == .policyViolation && outbox.closeCode.reason == "outbox full")
        #expect(!outbox.send([1]))  // closed: refused, no second overflow
        #expect(overflows.withLock { $0 } == 1)
        #expect(dropped.withLock { $0 } == 3)  // the two queued and the one that did not fit
    }

    @Test func writtenMessagesNoLongerCount() {
        let outbox = Outbox(capacity: 1_000, maxBytes: 1_000)
        #expect(outbox.send([UInt8](repeating: 1, count: 600)))
        outbox.written(messages: 1, bytes: 600)
        #expect(outbox.send([UInt8](repeating: 1, count: 600)))
        #expect(outbox.queuedBytes == 600 && !outbox.isOverflowed)
    }

    /// A big `connected` snapshot still goes out alone; nothing may queue behind it over the budget.
    @Test func oneMessageAloneMayExceedTheBudget() {
        let outbox = Outbox(capacity: 1_000, maxBytes: 1_000)
        #expect(outbox.send([UInt8](repeating: 1, count: 5_000)))
        #expect(!outbox.send([1]))
        #expect(outbox.isOverflowed)
    }

    @Test func theMessageCountStillBoundsIt() {
        let outbox = Outbox(capacity: 2, maxBytes: 1_000_000)
        #expect(outbox.send([1]) && outbox.send([2]))
        #expect(!outbox.send([3]))
        #expect(outbox.closeCode == .outboxOverflow)
    }

    /// A normal close keeps what is queued (the writer sends it, then the close frame).
    @Test func aNormalCloseIsNotAnOverflow() {
        let outbox = Outbox(capacity: 10, maxBytes: 1_000)
        #expect(outbox.send([1]))
        outbox.close(.normal)
        #expect(!outbox.isOverflowed && outbox.closeCode == .normal && !outbox.send([2]))
    }

    /// The writer takes everything that waits at once, in order, and is woken by the next message when idle.
    @Test func theWriterTakesWhatWaitsInOneBatch() async {
        let outbox = Outbox(capacity: 100)
        for value in [1, 2, 3] as [UInt8] { #expect(outbox.send([value])) }
        let first = await outbox.nextBatch()
        #expect(first?.map { Array($0.readableBytesView) } == [[1], [2], [3]])
        // Taken but not written: still counted.
        #expect(outbox.queuedBytes == 3)
        outbox.written(messages: 3, bytes: 3)
        #expect(outbox.queuedBytes == 0)

        async let waiting = outbox.nextBatch()  // nothing queued: waits
        #expect(await Self.writerWaits(outbox))
        #expect(outbox.send([4]))
        #expect(await waiting?.map { Array($0.readableBytesView) } == [[4]])
    }

    /// Closing ends the batches after what is queued; overflowing ends them at once, dropping what waits.
    @Test func batchesEndAfterACloseAndAtOnceOnOverflow() async {
        let closed = Outbox(capacity: 100)
        #expect(closed.send([1]))
        closed.close(.normal)
        #expect(await closed.nextBatch()?.count == 1)
        #expect(await closed.nextBatch() == nil)

        let overflowed = Outbox(capacity: 1)
        #expect(overflowed.send([1]))
        #expect(!overflowed.send([2]))
        #expect(await overflowed.nextBatch() == nil)

        let idle = Outbox(capacity: 10)
        async let waiting = idle.nextBatch()
        #expect(await Self.writerWaits(idle))
        idle.close(.goingAway)
        #expect(await waiting == nil)
    }

    /// A cancelled writer stops waiting.
    @Test func aCancelledWriterStopsWaiting() async {
        let outbox = Outbox(capacity: 10)
        let writer = Task { await outbox.nextBatch() }
        #expect(await Self.writerWaits(outbox))
        writer.cancel()
        #expect(await writer.value == nil)
        #expect(await outbox.nextBatch() == nil)  // and stays stopped
    }

    /// Waits (bounded: 5 s) until the outbox's writer is waiting for a batch, so that the test exercises the wake-up.
    private static func writerWaits(_ outbox: Outbox) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        while !outbox.writerIsWaiting, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(1))
        }
        return outbox.writerIsWaiting
    }
}
