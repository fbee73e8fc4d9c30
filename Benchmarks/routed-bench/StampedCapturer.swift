import Synchronization
import TokKitMedia
import TokKitRecordingTestSupport
import TokKitTesting

/// The publisher's camera: ``RecordingTestMedia``'s numbered pattern (panning bars, a scrolling texture, the
/// picture's number as blocks in a top band), picture `tick % loop` at each tick, and the time every tick was
/// captured in ``log`` (the frame's own timestamp too). A subscriber reads the number back from what it renders
/// (``StampReader``) and the benchmark finds the capture time of that frame in the log: capture-to-render latency
/// across processes (they share `CLOCK_MONOTONIC`: network namespaces do not change clocks).
final class StampedCapturer: PacedVideoCapture {
    let width: Int
    let height: Int
    let framesPerSecond: Double
    /// Distinct pictures; a frame rendered more than `loop / framesPerSecond` seconds late would be matched to the
    /// wrong capture.
    let loop: Int
    /// Capture time of every tick.
    let log: CaptureLog

    let pacedCapture = PacedCapture(threadName: "rb-stamped", hint: .motion)
    let frameSource: LoopedPictures

    init(width: Int, height: Int, framesPerSecond: Double, loop: Int, capacity: Int) {
        precondition(width >= 64 && loop > 0 && loop <= StampReader.maximumNumber(sourceWidth: width))
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        self.loop = loop
        let log = CaptureLog(capacity: capacity)
        self.log = log
        frameSource = LoopedPictures { tick in
            let now = MonotonicClock.now()
            log.record(tick: tick, at: now)
            return (tick, now)
        }
    }

    deinit { stopCapture() }

    func initCapture() throws(VideoCaptureError) {
        guard pacedCapture.stage != .started, !frameSource.isPrepared else {
            pacedCapture.markInitialized()
            return
        }
        let (width, height) = (self.width, self.height)
        frameSource.prepare(format: captureSettings(), count: loop) { n, plane in
            RecordingTestMedia.luma(index: n, width: width, height: height).withUnsafeBytes { plane.copyMemory(from: $0) }
        }
        pacedCapture.markInitialized()
    }

    func captureSettings() -> VideoFormat { .i420(width: width, height: height, fps: framesPerSecond) }
}

/// Capture times by tick, in storage reserved up front (the capture thread never allocates); ticks past the
/// capacity are not recorded.
final class CaptureLog: Sendable {
    private let times: Mutex<[Duration]>
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        var times: [Duration] = []
        times.reserveCapacity(capacity)
        self.times = Mutex(times)
    }

    /// Called on the capture thread; ticks arrive in order from 0 (a restarted capture starts again at 0).
    func record(tick: Int, at time: Duration) {
        times.withLock { times in
            if tick < times.count { times[tick] = time } else if tick == times.count, times.count < capacity {
                times.append(time)
            }
        }
    }

    /// The capture time of the latest tick showing picture `number` (of `loop`) captured no later than
    /// `renderedAt`, nil if there is none.
    func captureTime(of number: Int, loop: Int, renderedAt: Duration) -> Duration? {
        times.withLock { times in
            // The last tick captured at or before renderedAt (times only grow).
            var low = 0, high = times.count
            while low < high {
                let mid = (low + high) / 2
                if times[mid] <= renderedAt { low = mid + 1 } else { high = mid }
            }
            let last = low - 1
            guard last >= 0 else { return nil }
            let tick = last - ((last - number) % loop + loop) % loop
            return tick >= 0 ? times[tick] : nil
        }
    }
}
