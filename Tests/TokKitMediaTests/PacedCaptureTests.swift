import Synchronization
import Testing
import TokKitMedia

/// ``PacedCapture`` with a scripted ``PacedFrameSource``: which ticks count as delivered, when the thread ends, the
/// lifecycle's refusals.
@Suite struct PacedCaptureTests {
    /// Plays a script of tick results, then ends; counts frames handed over and whether it was freed.
    final class ScriptedSource: PacedFrameSource {
        let script: [PacedFrameResult]
        let ticks = Atomic<Int>(0)
        let handed = Atomic<Int>(0)
        let freed = Atomic<Bool>(false)
        let frame: VideoFrame

        init(_ script: [PacedFrameResult]) throws {
            self.script = script
            frame = try VideoFrame(format: .i420(width: 16, height: 16),
                               copying: [[UInt8](repeating: 16, count: 256), [UInt8](repeating: 128, count: 64),
                                         [UInt8](repeating: 128, count: 64)])
        }

        func deliverFrame(to consumer: (any VideoCaptureConsumer)?) -> PacedFrameResult {
            let tick = ticks.add(1, ordering: .relaxed).oldValue
            guard tick < script.count else { return .ended }
            if script[tick] == .delivered {
                consumer?.consumeFrame(frame)
                handed.add(1, ordering: .relaxed)
            }
            return script[tick]
        }

        func free() { freed.store(true, ordering: .relaxed) }
    }

    final class Counter: VideoCaptureConsumer {
        let frames = Atomic<Int>(0)
        func consumeFrame(_ frame: VideoFrame) { frames.add(1, ordering: .relaxed) }
    }

    /// Waits (bounded) until the thread ended on its own.
    private func waitUntilStopped(_ capture: PacedCapture) async throws {
        for _ in 0..<400 where capture.isRunning { try await Task.sleep(for: .milliseconds(5)) }
        #expect(!capture.isRunning)
    }

    @Test func onlyDeliveredTicksCountAndEndStopsTheThread() async throws {
        let source = try ScriptedSource([.delivered, .skipped, .delivered, .skipped, .skipped, .delivered, .ended,
                                         .delivered])
        let counter = Counter()
        let capture = PacedCapture(threadName: "tk-test-paced", hint: .motion)
        capture.consumer = counter
        capture.markInitialized()
        try capture.start(every: .milliseconds(1), source: source)
        try await waitUntilStopped(capture)
        #expect(capture.framesDelivered == 3)
        #expect(counter.frames.load(ordering: .relaxed) == 3)
        #expect(source.ticks.load(ordering: .relaxed) == 7)  // nothing after `.ended`
        #expect(capture.stage == .started)  // ended by its source, not stopped: stop() still owns the thread
        capture.stop()
        #expect(capture.stage == .initialized)
        capture.release(source)
        #expect(capture.stage == .released)
        let freed = source.freed.load(ordering: .relaxed)
        #expect(freed)
    }

    @Test func startNeedsInitializationAndIsRefusedAfterRelease() throws {
        let source = try ScriptedSource([])
        let capture = PacedCapture(threadName: "tk-test-paced", hint: .none)
        #expect(throws: VideoCaptureError.notInitialized) { try capture.start(every: .milliseconds(1), source: source) }
        capture.markInitialized()
        capture.release(source)
        #expect(throws: VideoCaptureError.notInitialized) { try capture.start(every: .milliseconds(1), source: source) }
        capture.markInitialized()
        #expect(capture.stage == .initialized)
    }
}
