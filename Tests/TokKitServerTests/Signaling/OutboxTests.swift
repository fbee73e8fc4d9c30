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
        outbox.written(600)
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
}
