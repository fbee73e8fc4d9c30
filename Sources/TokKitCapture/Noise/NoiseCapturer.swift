import Synchronization

/// A video source of random pixels, as the SDK sample's basic capturer: ARGB frames of a fixed size at a fixed
/// rate, every pixel opaque with random R, G and B.
///
/// ``startCapture()`` starts a ``PeriodicThread`` named `tk-noise`. Each tick fills one buffer the capturer owns
/// (allocated once by ``initCapture()``) with a fast generator (wyrand, 8 bytes per step) and hands it to the
/// consumer as a **borrowed** frame, which the consumer converts or copies before returning: nothing is
/// allocated per frame. Timestamps are the monotonic time of each tick.
///
/// Control calls follow ``VideoCapture``'s contract (one control thread at a time); they are Mutex-guarded.
public final class NoiseCapturer: VideoCapture {
    /// Frame width in pixels.
    public let width: Int
    /// Frame height in pixels.
    public let height: Int
    /// Frames delivered per second.
    public let framesPerSecond: Double
    /// The generator's seed: equal seeds give equal frame sequences.
    public let seed: UInt64

    /// The widths and heights the capturer accepts, in pixels.
    public static let sizes = 1...16384  // as VideoFormat.validate()
    /// The frame rates the capturer accepts.
    public static let rates = 0.1...1000.0

    private let capture = PacedCapture(threadName: "tk-noise", hint: .motion)
    private let source: NoiseSource

    /// A source of `width` × `height` frames at `framesPerSecond`; checked by ``initCapture()``.
    public init(width: Int = 640, height: Int = 480, framesPerSecond: Double = 30, seed: UInt64 = 0x7e57_c0de) {
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        self.seed = seed
        source = NoiseSource()
    }

    deinit { stopCapture() }

    /// Who receives the frames, held weakly (keep it alive yourself; ``LocalPreview`` is kept by its owner).
    /// Read once by ``startCapture()``, which keeps it until ``stopCapture()``.
    public var videoCaptureConsumer: (any VideoCaptureConsumer)? {
        get { capture.consumer }
        set { capture.consumer = newValue }
    }

    /// The hint handed on with the frames; `.motion` by default.
    public var videoContentHint: VideoContentHint {
        get { capture.hint }
        set { capture.hint = newValue }
    }

    /// Frames handed to the consumer since the capturer was created.
    public var framesDelivered: Int { capture.framesDelivered }

    /// Checks the size and rate and allocates the frame buffer.
    ///
    /// - Throws: ``VideoCaptureError/noUsableFormat(_:)`` when the size is outside ``sizes`` or the rate outside
    ///   ``rates``.
    public func initCapture() throws(VideoCaptureError) {
        guard Self.sizes.contains(width), Self.sizes.contains(height) else {
            throw .noUsableFormat("noise: size \(width)x\(height) is outside \(Self.sizes)")
        }
        guard Self.rates.contains(framesPerSecond) else {
            throw .noUsableFormat("noise: frame rate \(framesPerSecond) is outside \(Self.rates)")
        }
        switch capture.stage {
        case .started, .initialized: return
        case .created, .released:
            let (format, seed) = (captureSettings(), seed)
            let made = source.generator.withLock { generator in
                generator = NoiseGenerator(format: format, seed: seed)
                return generator != nil
            }
            guard made else { throw .noUsableFormat("noise: invalid frame format \(format)") }
            capture.markInitialized()
        }
    }

    /// Starts delivering frames.
    ///
    /// - Throws: ``VideoCaptureError/notInitialized`` before ``initCapture()`` or after ``releaseCapture()``.
    public func startCapture() throws(VideoCaptureError) {
        try capture.start(every: .nanoseconds(Int64((1e9 / framesPerSecond).rounded())), source: source)
    }

    /// Stops delivering frames; when it returns no frame is being delivered (unless called from the consumer,
    /// on the capture thread, where it only asks).
    public func stopCapture() { capture.stop() }

    /// Stops and frees the frame buffer (at deinit when called from the consumer on the capture thread).
    public func releaseCapture() { capture.release(source) }

    /// Whether the capture thread runs.
    public var isCaptureStarted: Bool { capture.isRunning }

    /// ARGB at the configured size and rate.
    public func captureSettings() -> VideoFormat { .argb(width: width, height: height, fps: framesPerSecond) }
}

/// The data-plane half of a ``NoiseCapturer``, shared with its capture thread.
private final class NoiseSource: PacedFrameSource {
    /// Used by the capture thread while started; the control thread takes it only when no thread runs.
    let generator = Mutex<NoiseGenerator?>(nil)

    func deliverFrame(to consumer: (any VideoCaptureConsumer)?) -> PacedFrameResult {
        generator.withLock { generator in
            guard let generator else { return .ended }
            generator.nextFrame { consumer?.consumeFrame($0) }
            return .delivered
        }
    }

    func free() { generator.withLock { $0 = nil } }
}

/// One reusable ARGB buffer and the generator that fills it.
private final class NoiseGenerator {
    private var random: WyRand
    private let buffer: UnsafeMutableRawBufferPointer
    private let format: VideoFormat
    /// Lends ``buffer`` for one `consumeFrame` call at a time.
    private let lease = FrameLease()

    /// Allocates the buffer for `format` (tightly packed ARGB); `nil` if the format is invalid.
    init?(format: VideoFormat, seed: UInt64) {
        guard (try? format.validate()) != nil, format.pixelFormat.planeCount == 1 else { return nil }
        random = WyRand(seed: seed)
        self.format = format
        buffer = .allocate(byteCount: format.minimumFrameSize, alignment: 64)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit { buffer.deallocate() }

    /// Refills the buffer with opaque random pixels and lends it to `body` as a borrowed frame stamped now.
    func nextFrame(_ body: (VideoFrame) -> Void) {
        // Bytes B, G, R, A per pixel: two pixels per 64-bit word, alpha (bytes 3 and 7) forced to 0xFF.
        let opaque: UInt64 = 0xff00_0000_ff00_0000
        let words = buffer.count / 8
        let base = buffer.baseAddress!
        for i in 0..<words {
            base.storeBytes(of: (random.next() | opaque).littleEndian, toByteOffset: i * 8, as: UInt64.self)
        }
        if buffer.count % 8 != 0 {  // an odd pixel count leaves one 4-byte pixel
            let last = UInt32(truncatingIfNeeded: random.next()) | 0xff00_0000
            base.storeBytes(of: last.littleEndian, toByteOffset: words * 8, as: UInt32.self)
        }
        // Cannot throw: init checked the format, and the buffer holds exactly its minimum frame size.
        try? lease.lend(format: format, borrowing: UnsafeRawBufferPointer(buffer)) { frame in body(frame) }
    }
}
