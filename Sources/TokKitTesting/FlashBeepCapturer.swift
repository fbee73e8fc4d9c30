import Synchronization
import TokKitMedia

/// The video half of a flash-and-beep source: I420 frames that are white (luma 235) in the flash slots of a
/// ``FlashBeepSchedule`` and black (luma 16) otherwise, neutral chroma, one per slot. Its audio half is a
/// ``FlashBeepAudioDevice`` on the same schedule.
///
/// Every frame also carries (unless made without `stampsPhase`) its slot's place within the flash interval (slot
/// modulo `framesPerFlash`, ``phase(ofSlot:schedule:)``) in a band over its top eighth: eight blocks of `width / 8`,
/// bit `k` in block `k`, white for 1 and black for 0 (``phase(inLuma:width:height:)`` reads it back, at any scale).
/// So a recording can tell, for every picture it shows, which instant it was captured at (the phase and the nearest
/// beep name the slot), not only for a flash's first picture.
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
    /// Whether each frame carries its phase band.
    public let stampsPhase: Bool

    public let pacedCapture = PacedCapture(threadName: "tk-flash", hint: .motion)
    /// Pictures `0..<framesPerFlash` dark, `framesPerFlash + p` white (`p < flashFrames`), each carrying its phase
    /// `p`; each tick picks by the slot it falls in.
    public let frameSource: LoopedPictures
    private let flashes: Flashes

    /// A `width` x `height` source flashing on `schedule` (one frame per slot, `schedule.framesPerSecond`).
    /// `width` must hold the eight blocks of the band (at least 16) and `schedule.framesPerFlash` at most 256.
    /// Without `stampsPhase` the frames carry no band: plain white and black, the same picture for every dark slot
    /// (an encoder sends almost nothing between flashes).
    public init(width: Int = 320, height: Int = 240, schedule: FlashBeepSchedule, stampsPhase: Bool = true) {
        precondition(width >= 16 && height >= 16 && schedule.framesPerFlash <= 256, "room for the phase band")
        self.stampsPhase = stampsPhase
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
            let phase = Self.phase(ofSlot: slot, schedule: schedule)
            return (flash ? schedule.framesPerFlash + phase : phase, schedule.frameTime(slot))
        }
    }

    deinit { stopCapture() }

    /// How many of the frames delivered were white.
    public var flashFramesDelivered: Int { flashes.delivered.load(ordering: .relaxed) }

    public func initCapture() throws(VideoCaptureError) {
        guard pacedCapture.stage != .started else { return }
        flashes.lastSlot.store(Int.min, ordering: .relaxed)
        let (width, height, perFlash, stampsPhase) = (width, height, schedule.framesPerFlash, stampsPhase)
        frameSource.prepare(format: captureSettings(), count: perFlash + schedule.flashFrames) { picture, luma in
            let flash = picture >= perFlash
            _ = luma.initializeMemory(as: UInt8.self, repeating: flash ? Self.flashLuma : Self.darkLuma)
            if stampsPhase { Self.drawPhase(picture % perFlash, into: luma, width: width, height: height) }
        }
        pacedCapture.markInitialized()
    }

    public func captureSettings() -> VideoFormat {
        .i420(width: width, height: height, fps: Double(schedule.framesPerSecond))
    }

    // MARK: - The phase band

    /// Slot `slot`'s place within its flash interval: `slot` modulo `framesPerFlash`, in `0..<framesPerFlash` (also
    /// before the origin).
    public static func phase(ofSlot slot: Int, schedule: FlashBeepSchedule) -> Int {
        let phase = slot % schedule.framesPerFlash
        return phase < 0 ? phase + schedule.framesPerFlash : phase
    }

    /// Writes `phase` (0...255) into the band over the top eighth of a packed luma plane.
    public static func drawPhase(_ phase: Int, into luma: UnsafeMutableRawBufferPointer, width: Int, height: Int) {
        precondition(width >= 8 && luma.count >= width * height, "a packed width x height plane")
        let block = width / 8
        for row in 0..<(height / 8) {
            for bit in 0..<8 {
                let value = (phase >> bit) & 1 == 1 ? flashLuma : darkLuma
                let start = row * width + bit * block
                for x in start..<(start + block) { luma[x] = value }
            }
        }
    }

    /// The phase written in the band of a decoded luma plane (`width` x `height`, rows packed) showing the whole
    /// frame, at any scale: each block judged by its centre.
    public static func phase(inLuma luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> Int {
        precondition(width >= 8 && luma.count >= width * height, "a packed width x height plane")
        let (block, row) = (width / 8, height / 16)
        var value = 0
        for bit in 0..<8 where luma[row * width + bit * block + block / 2] > 128 { value |= 1 << bit }
        return value
    }
}

/// The slot of the last frame and the white frames delivered, shared with the capture thread.
private final class Flashes: Sendable {
    let lastSlot = Atomic<Int>(Int.min)
    let delivered = Atomic<Int>(0)
}
