import Testing
@testable import TokKitStreaming

@Suite("PacketSendQueue") struct PacketSendQueueTests {
    static func push(_ q: PacketSendQueue, _ n: Int, bytes: Int, frameBytes: Int = 0, paced: Int64 = 0) -> Bool {
        let payload = [UInt8](repeating: UInt8(n), count: bytes)
        return payload.withUnsafeBytes {
            q.push($0, header: .init(timestamp: UInt32(n), marker: n % 2 == 1, frameBytes: frameBytes,
                                     estimate: 300_000, pacedNanoseconds: paced))
        }
    }

    @Test func isBoundedKeepsOrderAndCountsTheBacklog() {
        let q = PacketSendQueue(capacity: 3, slotBytes: 16)
        for n in 0..<3 { #expect(Self.push(q, n, bytes: 10 + n, frameBytes: n == 0 ? 33 : 0, paced: Int64(1_000 * (n + 1)))) }
        #expect(!Self.push(q, 3, bytes: 4, paced: 1_000_000), "a fourth packet must not fit")
        #expect(q.backlog == .init(bytes: 33, packets: 3, time: .nanoseconds(6_000)))
        for n in 0..<3 {
            var seen: (bytes: Int, intact: Bool, header: PacketSendQueue.Header?) = (0, false, nil)
            var during = PacketSendQueue.Backlog()
            let popped = q.pop { payload, header in
                seen = (payload.count, payload.allSatisfy { $0 == UInt8(n) }, header)
                during = q.backlog
            }
            #expect(popped)
            // The packet being sent still counts: the encode thread sees it as not yet gone.
            #expect(during.bytes == (10 + n ..< 13).reduce(0, +))
            #expect(during.time == .nanoseconds(Int64((n + 1 ... 3).reduce(0, +) * 1_000)))
            #expect(seen.bytes == 10 + n && seen.intact)
            #expect(seen.header?.timestamp == UInt32(n) && seen.header?.marker == (n % 2 == 1))
            #expect(seen.header?.frameBytes == (n == 0 ? 33 : 0) && seen.header?.estimate == 300_000)
        }
        #expect(q.backlog == .init())
        #expect(Self.push(q, 9, bytes: 5), "popped slots are free again")
    }

    @Test func growsASlotForALargePayload() {
        let q = PacketSendQueue(capacity: 2, slotBytes: 8)
        #expect(Self.push(q, 7, bytes: 5_000))
        var sum = 0
        let popped = q.pop { payload, _ in sum = payload.reduce(0) { $0 + Int($1) } }
        #expect(popped)
        #expect(sum == 35_000)
    }

    @Test func aQueueHasAtLeastOneSlot() {
        let q = PacketSendQueue(capacity: 0)
        #expect(q.capacity == 1)
        #expect(Self.push(q, 1, bytes: 3) && !Self.push(q, 2, bytes: 3))
    }

    @Test func wakeUpReturnsEmptyAndRemoveAllEmpties() {
        let q = PacketSendQueue(capacity: 4)
        q.wakeUp()
        let woken = q.pop { _, _ in Issue.record("no packet was pushed") }
        #expect(!woken)
        #expect(Self.push(q, 1, bytes: 100, paced: 5) && Self.push(q, 2, bytes: 100, paced: 7))
        q.removeAll()
        #expect(q.backlog == .init())
        for _ in 0..<2 {
            let got = q.pop { _, _ in Issue.record("removed packets must not come out") }
            #expect(!got)
        }
    }
}
