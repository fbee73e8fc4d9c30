import Synchronization
import TokKitMedia

/// The video half of a flash-and-beep source: I420 frames that are white (luma 235) in the flash slots of a
/// ``FlashBeepSchedule`` and black (luma 16) otherwise, neutral chroma, one per slot. Its audio half is a
/// ``FlashBeepAudioDevice`` on the same schedule.
///
/// Each frame is stamped with the start of the slot it was taken in (a camera stamps its exposure time; this one
/// exposes at the slot's start), so a flash's first white frame carries exactly the capture time of its beep's
/// first sample. A tick that falls into the slot of the previous frame (a late tick followed by a prompt one)
/// sends nothing; a slot whose tick came too late is skipped, as a real camera drops a frame.
///
/// ``startCapture()`` starts a ``PeriodicThread`` named `tk-flash`; each tick lends the consumer one of two
/// buffers allocated in ``initCapture()``. Control calls are Mutex-guarded.
public final class FlashBeepCapturer: VideoCapture {
    /// Luma of a flash frame.
    public static let flashLuma: UInt8 = 235
    /// Luma between flashes.
    public static let darkLuma: UInt8 = 16

    /// Frame width in pixels.
    public let width: Int
    /// Frame height in pixels.
    public let height: Int
    /// When it flashes.
    public let schedule: FlashBeepSchedule

    private struct Control {
        weak var consumer: (any VideoCaptureConsumer)?
        var hint = VideoContentHint.motion
        var thread: PeriodicThread?
        var frames: FramePair?
    }

    private let control = Mutex(Control())
    private let counters = Counters()

    /// A `width` x `height` source flashing on `schedule` (one frame per slot, `schedule.framesPerSecond`).
    public init(width: Int = 320, height: Int = 240, schedule: FlashBeepSchedule) {
        self.width = width
        self.height = height
        self.schedule = schedule
    }

    deinit { stopCapture() }

    /// Frames handed to the consumer so far, and how many of them were white.
    public var framesDelivered: Int { counters.delivered.load(ordering: .relaxed) }
    public var flashFramesDelivered: Int { counters.flashes.load(ordering: .relaxed) }

    public var videoCaptureConsumer: (any VideoCaptureConsumer)? {
        get { control.withLock { $0.consumer } }
        set { control.withLock { $0.consumer = newValue } }
    }

    public var videoContentHint: VideoContentHint {
        get { control.withLock { $0.hint } }
        set { control.withLock { $0.hint = newValue } }
    }

    public func initCapture() throws(VideoCaptureError) {
        let size = captureSettings().minimumFrameSize
        control.withLock { c in
            if c.frames == nil { c.frames = FramePair(byteCount: size, lumaCount: width * height) }
        }
    }

    public func releaseCapture() {
        stopCapture()
        control.withLock { $0.frames = nil }
    }

    public func startCapture() throws(VideoCaptureError) {
        let format = captureSettings()
        let (schedule, counters) = (self.schedule, self.counters)
        let ySize = width * height, cSize = (width / 2) * (height / 2)
        let ready: Bool = control.withLock { c in
            guard c.thread == nil, let frames = c.frames, let consumer = c.consumer else { return c.thread != nil }
            let lease = FrameLease()
            counters.lastSlot.store(Int.min, ordering: .relaxed)
            let interval = Duration.nanoseconds(1_000_000_000 / Int64(schedule.framesPerSecond))
            c.thread = PeriodicThread(name: "tk-flash", interval: interval) { [weak consumer] in
                guard let consumer else { return false }
                let slot = schedule.frame(at: MonotonicClock.now())
                guard slot != counters.lastSlot.load(ordering: .relaxed) else { return true }
                counters.lastSlot.store(slot, ordering: .relaxed)
                let flash = schedule.isFlash(frame: slot)
                let b = UnsafeRawBufferPointer(flash ? frames.white : frames.dark)
                do {
                    try lease.lend(
                        format: format, borrowing: UnsafeRawBufferPointer(rebasing: b[0..<ySize]),
                        UnsafeRawBufferPointer(rebasing: b[ySize..<(ySize + cSize)]),
                        UnsafeRawBufferPointer(rebasing: b[(ySize + cSize)..<(ySize + 2 * cSize)]),
                        timestamp: schedule.frameTime(slot)
                    ) { video in consumer.consumeFrame(video) }
                } catch {
                    return false
                }
                counters.delivered.add(1, ordering: .relaxed)
                if flash { counters.flashes.add(1, ordering: .relaxed) }
                return true
            }
            return true
        }
        if !ready { throw .notInitialized }
    }

    public func stopCapture() {
        let thread = control.withLock { c in defer { c.thread = nil }; return c.thread }
        thread?.stop()
    }

    public var isCaptureStarted: Bool { control.withLock { $0.thread != nil } }

    public func captureSettings() -> VideoFormat {
        .i420(width: width, height: height, fps: Double(schedule.framesPerSecond))
    }
}

/// The two pictures, white and black, owned for the lifetime of the capture thread.
private final class FramePair: @unchecked Sendable {
    let white: UnsafeMutableRawBufferPointer
    let dark: UnsafeMutableRawBufferPointer

    init(byteCount: Int, lumaCount: Int) {
        white = .allocate(byteCount: byteCount, alignment: 64)
        dark = .allocate(byteCount: byteCount, alignment: 64)
        _ = white.initializeMemory(as: UInt8.self, repeating: 128)
        _ = dark.initializeMemory(as: UInt8.self, repeating: 128)
        _ = white.baseAddress!.initializeMemory(as: UInt8.self, repeating: FlashBeepCapturer.flashLuma, count: lumaCount)
        _ = dark.baseAddress!.initializeMemory(as: UInt8.self, repeating: FlashBeepCapturer.darkLuma, count: lumaCount)
    }

    deinit {
        white.deallocate()
        dark.deallocate()
    }
}

/// Frames delivered and the slot of the last one, shared with the capture thread.
private final class Counters: Sendable {
    let lastSlot = Atomic<Int>(Int.min)
    let delivered = Atomic<Int>(0)
    let flashes = Atomic<Int>(0)
}
