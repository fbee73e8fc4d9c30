import Testing
@testable import TokKitStreaming

@Suite("EncodedFrameQueue") struct EncodedFrameQueueTests {
    @Test func isBoundedAndKeepsOrderAndBytes() {
        let q = EncodedFrameQueue(capacity: 3, slotBytes: 16)
        for n in 0..<3 {
            let ok = q.push(length: 10 + n, header: .init(rtpTimestamp: UInt32(n))) { $0.initializeMemory(as: UInt8.self, repeating: UInt8(n)) }
            #expect(ok)
        }
        #expect(!q.push(length: 4, header: .init()) { _ in }, "a fourth frame must not fit")
        for n in 0..<3 {
            var seen: (Int, UInt32, Bool) = (0, 0, false)
            #expect(q.pop { bytes, header in seen = (bytes.count, header.rtpTimestamp, bytes.allSatisfy { $0 == UInt8(n) }) })
            #expect(seen.0 == 10 + n && seen.1 == UInt32(n) && seen.2)
        }
        #expect(q.count == 0)
    }

    @Test func growsASlotForALargeFrame() {
        let q = EncodedFrameQueue(capacity: 2, slotBytes: 8)
        #expect(q.push(length: 100_000, header: .init()) { $0.initializeMemory(as: UInt8.self, repeating: 7) })
        var sum = 0
        #expect(q.pop { bytes, _ in sum = bytes.reduce(0) { $0 + Int($1) } })
        #expect(sum == 700_000)
    }

    @Test func wakeUpReturnsEmpty() {
        let q = EncodedFrameQueue(capacity: 2)
        q.wakeUp()
        #expect(!q.pop { _, _ in Issue.record("no frame was pushed") })
    }

    @Test func dropWaitingFreesEverySlotButTheOneBeingRead() {
        let q = EncodedFrameQueue(capacity: 3, slotBytes: 16)
        func push(_ n: UInt32) -> Bool { q.push(length: 4, header: .init(rtpTimestamp: n)) { $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        for n: UInt32 in 0..<3 { #expect(push(n)) }
        // Nobody reading: all three go, and the next frame is the first out.
        #expect(q.dropWaiting() == 3)
        #expect(q.count == 0)
        #expect(push(10) && push(11) && push(12))
        // The consumer holds the head (frame 10) while the producer drops: 10 stays, 11 and 12 go.
        var order: [UInt32] = []
        var (droppedWhileReading, pushedAfterDrop) = (0, false)
        let popped = q.pop { _, header in
            order.append(header.rtpTimestamp)
            droppedWhileReading = q.dropWaiting()
            pushedAfterDrop = push(13)
        }
        #expect(popped && droppedWhileReading == 2)
        #expect(pushedAfterDrop, "a dropped slot is free again")
        // Wake-ups left by the dropped frames find nothing or the frame pushed after the drop.
        for _ in 0..<4 where q.count > 0 { q.pop { _, header in order.append(header.rtpTimestamp) } }
        #expect(order == [10, 13])
        #expect(q.count == 0)
    }
}
