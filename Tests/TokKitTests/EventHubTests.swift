import Dispatch
import Synchronization
import Testing

@testable import TokKit
import TokKitTesting

@Suite struct EventHubTests {
    @Test func everyStreamAndTheDelegateQueueSeeTheSameOrder() async {
        let queue = DispatchQueue(label: "hub.test")
        let hub = EventHub(queue: queue, bufferLimit: 1000)
        let s1 = hub.makeStream(), s2 = hub.makeStream()
        let log = OrderLog()
        // Four tasks emit at once; the delegate work records each event's number in queue order.
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<100 {
                        let n = log.next()
                        hub.emit(.signalReceived(type: "n", data: "\(n)", from: nil)) { log.record(n) }
                    }
                }
            }
        }
        hub.finish()
        var a: [String] = [], b: [String] = []
        for await e in s1 { if case .signalReceived(_, let d, _) = e { a.append(d) } }
        for await e in s2 { if case .signalReceived(_, let d, _) = e { b.append(d) } }
        queue.sync {}
        #expect(a.count == 400)
        #expect(a == b)
        #expect(a == log.recorded.map { "\($0)" })
    }

    @Test func aSlowStreamKeepsTheNewestEventsWithinItsLimit() async {
        let hub = EventHub(queue: DispatchQueue(label: "hub.limit"), bufferLimit: 3)
        let stream = hub.makeStream()
        for i in 0..<10 { hub.emit(.signalReceived(type: "", data: "\(i)", from: nil), delegateWork: nil) }
        hub.finish()
        var got: [String] = []
        for await e in stream { if case .signalReceived(_, let d, _) = e { got.append(d) } }
        #expect(got == ["7", "8", "9"])
    }

    @Test func cancelledStreamsAreForgottenAndFinishEndsTheRest() async {
        let hub = EventHub(queue: DispatchQueue(label: "hub.cancel"), bufferLimit: 10)
        let task = Task { for await _ in hub.makeStream() {} }
        #expect(await eventually { hub.streamCount == 1 })
        task.cancel()
        #expect(await eventually { hub.streamCount == 0 })
        let stream = hub.makeStream()
        hub.finish()
        var n = 0
        for await _ in stream { n += 1 }
        #expect(n == 0)
        // After finish, new streams end at once.
        for await _ in hub.makeStream() { n += 1 }
        #expect(n == 0 && hub.streamCount == 0)
    }
}

/// Numbers handed out and the order they were recorded in.
private final class OrderLog: Sendable {
    private let counter = Atomic<Int>(0)
    private let seen = Mutex<[Int]>([])
    func next() -> Int { counter.add(1, ordering: .relaxed).newValue }
    func record(_ n: Int) { seen.withLock { $0.append(n) } }
    var recorded: [Int] { seen.withLock { $0 } }
}
