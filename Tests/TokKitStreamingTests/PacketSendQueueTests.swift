import Testing
@testable import TokKitStreaming

@Suite("PacketSendQueue") struct PacketSendQueueTests {
    static func push(_ q: PacketSendQueue, _ n: Int, bytes: Int, frameBytes: Int = 0) -> Bool {
        let payload = [UInt8](repeating: UInt8(n), count: bytes)
        return payload.withUnsafeBytes {
            q.push($0, header: .init(timestamp: UInt32(n), marker: n % 2 == 1, frameBytes: frameBytes, estimate: 300_000))
        }
    }

    @Test func isBoundedKeepsOrderAndCountsTheBacklog() {
        let q = PacketSendQueue(capacity: 3, slotBytes: 16)
        for n in 0..<3 { #expect(Self.push(q, n, bytes: 10 + n, frameBytes: n == 0 ? 33 : 0)) }
        #expect(!Self.push(q, 3, bytes: 4), "a fourth packet must not fit")
        #expect(q.backlog == (33, 3))
        for n in 0..<3 {
            var seen: (bytes: Int, intact: Bool, header: PacketSendQueue.Header?) = (0, false, nil)
            var during = 0
            let popped = q.pop { payload, header in
                seen = (payload.count, payload.allSatisfy { $0 == UInt8(n) }, header)
                during = q.backlog.bytes
            }
            #expect(popped)
            // The packet being sent still counts: the encode thread sees it as not yet gone.
            #expect(during == (10 + n ..< 13).reduce(0, +))
            #expect(seen.bytes == 10 + n && seen.intact)
            #expect(seen.header?.timestamp == UInt32(n) && seen.header?.marker == (n % 2 == 1))
            #expect(seen.header?.frameBytes == (n == 0 ? 33 : 0) && seen.header?.estimate == 300_000)
        }
        #expect(q.backlog == (0, 0))
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

    @Test func wakeUpReturnsEmptyAndRemoveAllEmpties() {
        let q = PacketSendQueue(capacity: 4)
        q.wakeUp()
        let woken = q.pop { _, _ in Issue.record("no packet was pushed") }
        #expect(!woken)
        #expect(Self.push(q, 1, bytes: 100) && Self.push(q, 2, bytes: 100))
        q.removeAll()
        #expect(q.backlog == (0, 0))
        for _ in 0..<2 {
            let got = q.pop { _, _ in Issue.record("removed packets must not come out") }
            #expect(!got)
        }
    }
}
