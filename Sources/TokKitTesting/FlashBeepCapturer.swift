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
/// ``startCapture()`` starts a ``PeriodicThread`` named `tk-flash`; each tick lends the consumer one of the two
/// pictures drawn by ``initCapture()`` (``LoopedPictures``). Control calls are Mutex-guarded (``PacedCapture``).
public final class FlashBeepCapturer: PacedVideoCapture {
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

    public let pacedCapture = PacedCapture(threadName: "tk-flash", hint: .motion)
    /// Picture 0 dark, 1 white; each tick picks by the slot it falls in.
    public let frameSource: LoopedPictures
    private let flashes: Flashes

    /// A `width` x `height` source flashing on `schedule` (one frame per slot, `schedule.framesPerSecond`).
    public init(width: Int = 320, height: Int = 240, schedule: FlashBeepSchedule) {
        self.width = width
        self.height = height
        self.schedule = schedule
        let flashes = Flashes()
        self.flashes = flashes
        frameSource = LoopedPictures { _ in
            let slot = schedule.frame(at: MonotonicClock.now())
            guard flashes.lastSlot.exchange(slot, ordering: .relaxed) != slot else { return nil }
            let flash = schedule.isFlash(frame: slot)
            if flash { flashes.delivered.add(1, ordering: .relaxed) }
            return (flash ? 1 : 0, schedule.frameTime(slot))
        }
    }

    deinit { stopCapture() }

    /// How many of the frames delivered were white.
    public var flashFramesDelivered: Int { flashes.delivered.load(ordering: .relaxed) }

    public func initCapture() throws(VideoCaptureError) {
        guard pacedCapture.stage != .started else { return }
        flashes.lastSlot.store(Int.min, ordering: .relaxed)
        frameSource.prepare(format: captureSettings(), count: 2) { picture, luma in
            _ = luma.initializeMemory(as: UInt8.self, repeating: picture == 1 ? Self.flashLuma : Self.darkLuma)
        }
        pacedCapture.markInitialized()
    }

    public func captureSettings() -> VideoFormat {
        .i420(width: width, height: height, fps: Double(schedule.framesPerSecond))
    }
}

/// The slot of the last frame and the white frames delivered, shared with the capture thread.
private final class Flashes: Sendable {
    let lastSlot = Atomic<Int>(Int.min)
    let delivered = Atomic<Int>(0)
}
