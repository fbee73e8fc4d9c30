import Synchronization
import TokKitCapture

/// A consumer that checks and records what a capturer delivers: for each frame its format, timestamp,
/// borrowed-ness, the code band (counter, marker) and the colour of each bar, decoded on the capture thread
/// while the frame is valid. Detects overlapping `consumeFrame` calls and frames after a failure.
///
/// Thread-safe. Tests wait on it with ``wait(timeout:until:)``: a condition variable with a bounded deadline,
/// no sleeping.
final class RecordingConsumer: VideoCaptureConsumer, @unchecked Sendable {
    struct Frame: Sendable {
        var format: VideoFormat
        var timestamp: Duration
        var receivedAt: Duration
        var isBorrowed: Bool
        var counter: UInt16
        var marker: UInt8
        /// (Y, U, V) at the middle of each bar, mid-height.
        var bars: [(y: UInt8, u: UInt8, v: UInt8)]
    }

    /// Most frames kept (older ones are forgotten, counts go on).
    static let capacity = 256

    private let lock = ConditionLock()
    private var kept: [Frame] = []
    private var count = 0
    private var failureList: [VideoCaptureError] = []
    private var overlapped = false
    private var afterFailure = false
    private let inside = Atomic<Bool>(false)
    /// Called on the capture thread after each recorded frame (with the number of frames so far).
    let onFrame: (@Sendable (Int) -> Void)?

    init(onFrame: (@Sendable (Int) -> Void)? = nil) {
        self.onFrame = onFrame
    }

    func consumeFrame(_ frame: VideoFrame) {
        if inside.exchange(true, ordering: .acquiringAndReleasing) { lock.withLock { overlapped = true } }
        defer { inside.store(false, ordering: .releasing) }
        let record = Self.inspect(frame)
        let n: Int = lock.withLock {
            if !failureList.isEmpty { afterFailure = true }
            if kept.count == Self.capacity { kept.removeFirst() }
            kept.append(record)
            count += 1
            lock.broadcast()
            return count
        }
        onFrame?(n)
    }

    func captureDidFail(_ error: VideoCaptureError) {
        lock.withLock {
            failureList.append(error)
            lock.broadcast()
        }
    }

    var frames: [Frame] { lock.withLock { kept } }
    var frameCount: Int { lock.withLock { count } }
    var failures: [VideoCaptureError] { lock.withLock { failureList } }
    /// Whether two `consumeFrame` calls ever overlapped.
    var sawOverlap: Bool { lock.withLock { overlapped } }
    /// Whether a frame arrived after `captureDidFail`.
    var sawFrameAfterFailure: Bool { lock.withLock { afterFailure } }

    /// Waits until `condition` (evaluated under the lock on the recorded frames and failures) holds, or
    /// `timeout` passes. Returns whether it holds.
    @discardableResult
    func wait(timeout: Duration = .seconds(10), until condition: (_ frames: [Frame], _ failures: [VideoCaptureError]) -> Bool) -> Bool {
        let deadline = MonotonicClock.now() + timeout
        return lock.withLock {
            while !condition(kept, failureList) {
                if MonotonicClock.now() >= deadline { return false }
                lock.wait(until: deadline)
            }
            return true
        }
    }

    /// Waits for `n` more frames than `already`.
    @discardableResult
    func waitForFrames(_ n: Int, after already: Int = 0, timeout: Duration = .seconds(10)) -> Bool {
        let deadline = MonotonicClock.now() + timeout
        return lock.withLock {
            while count < already + n {
                if MonotonicClock.now() >= deadline { return false }
                lock.wait(until: deadline)
            }
            return true
        }
    }

    /// What `frame` shows; an expired frame (never seen here: camera frames are pooled) records no bars.
    static func inspect(_ frame: VideoFrame) -> Frame {
        let f = frame.format
        let seen: Frame? = try? frame.withPlanes { planes in
            let luma = planes[0]
            let code = SimulatedPattern.decode(luma: luma, stride: f.bytesPerRow[0], width: f.width, height: f.height)
            let y = f.height / 2
            var bars: [(UInt8, UInt8, UInt8)] = []
            for bar in 0..<8 {
                let x = SimulatedPattern.center(ofBar: bar, width: f.width)
                let l = luma[y * f.bytesPerRow[0] + x]
                switch f.pixelFormat {
                case .i420:
                    let c = (y / 2) * f.bytesPerRow[1] + x / 2
                    bars.append((l, planes[1][c], planes[2][(y / 2) * f.bytesPerRow[2] + x / 2]))
                case .nv12:
                    let c = (y / 2) * f.bytesPerRow[1] + (x / 2) * 2
                    bars.append((l, planes[1][c], planes[1][c + 1]))
                default:
                    bars.append((l, 0, 0))
                }
            }
            return Frame(
                format: f, timestamp: frame.timestamp, receivedAt: MonotonicClock.now(), isBorrowed: frame.isBorrowed,
                counter: code.counter, marker: code.marker, bars: bars)
        }
        return seen ?? Frame(format: f, timestamp: frame.timestamp, receivedAt: MonotonicClock.now(),
                             isBorrowed: frame.isBorrowed, counter: 0, marker: 0, bars: [])
    }
}
