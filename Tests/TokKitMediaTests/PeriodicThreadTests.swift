import Foundation
import Synchronization
import Testing
@testable import TokKitMedia

@Suite struct PeriodicThreadTests {
    @Test func ticksUntilStoppedAndStopJoins() async throws {
        let ticks = Atomic<Int>(0)
        let thread = PeriodicThread(name: "test-tick", interval: .milliseconds(2)) {
            ticks.add(1, ordering: .relaxed)
            return true
        }
        try await waitUntil { ticks.load(ordering: .relaxed) >= 5 }
        thread.stop()
        let afterStop = ticks.load(ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(20))
        #expect(ticks.load(ordering: .relaxed) == afterStop, "no tick after stop() returned")
    }

    @Test func tickReturningFalseEndsTheThread() async throws {
        let ticks = Atomic<Int>(0)
        let thread = PeriodicThread(name: "test-once", interval: .milliseconds(1)) {
            ticks.add(1, ordering: .relaxed).oldValue < 2
        }
        try await waitUntil { ticks.load(ordering: .relaxed) == 3 }
        thread.stop()
        #expect(ticks.load(ordering: .relaxed) == 3)
    }

    @Test func stopFromInsideTheTickDoesNotDeadlock() async throws {
        let box = Mutex<PeriodicThread?>(nil)
        let ticks = Atomic<Int>(0)
        let thread = PeriodicThread(name: "test-self", interval: .milliseconds(1)) {
            if ticks.add(1, ordering: .relaxed).newValue == 3 { box.withLock { $0?.stop() } }
            return true
        }
        box.withLock { $0 = thread }
        try await waitUntil { ticks.load(ordering: .relaxed) >= 3 }
        thread.stop()
        #expect(ticks.load(ordering: .relaxed) <= 4)
    }

    @Test func mediaThreadIsNamed() async throws {
        let name = Mutex<String>("")
        let t = MediaThread(name: "tokkit-named") { _ in
            var buf = [CChar](repeating: 0, count: 32)
            let fd = open("/proc/thread-self/comm", O_RDONLY)
            _ = read(fd, &buf, 31)
            close(fd)
            let bytes = buf.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }
            name.withLock { $0 = String(decoding: bytes, as: UTF8.self) }
        }
        t.stop()
        #expect(name.withLock { $0 } == "tokkit-named")
    }
}

/// Polls `condition` every millisecond for at most `timeout`; fails the test if it never holds.
func waitUntil(timeout: Duration = .seconds(5), _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("condition not met within \(timeout)")
            return
        }
        try await Task.sleep(for: .milliseconds(1))
    }
}
