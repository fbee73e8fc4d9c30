import Synchronization

/// An ``AudioDevice`` that captures white noise (as the SDK's custom-audio-driver sample) and discards what it
/// should play, one 10 ms period per tick of its own clock (`noise-capture` / `noise-render` threads).
///
/// The noise is uniform in `-amplitude...amplitude` from a xorshift generator (deterministic for a given seed;
/// no allocation per period). Control calls come from one thread at a time and never from inside a bus
/// callback; the getters may be read from any thread.
public final class NoiseAudioDevice: AudioDevice {
    /// The format of the noise, as given to ``init(format:amplitude:seed:)``.
    public let captureFormat: AudioFormat
    /// The same format as ``captureFormat``.
    public let renderFormat: AudioFormat
    /// Peak sample value of the noise.
    public let amplitude: Int16

    private let seed: UInt32
    private let bus = AudioBusSlot()
    private let capture: AudioDeviceSide<GeneratedCaptureWorker>
    private let render: AudioDeviceSide<DiscardRenderWorker>

    /// A device whose capture is noise of peak `amplitude` (about -20 dBFS by default) in `format`.
    public init(format: AudioFormat = .voice, amplitude: Int16 = 3_000, seed: UInt32 = 0x1234_5678) {
        captureFormat = format
        renderFormat = format
        self.amplitude = amplitude
        self.seed = seed
        capture = AudioDeviceSide(threadName: "noise-capture", pacing: .clock, bus: bus)
        render = AudioDeviceSide(threadName: "noise-render", pacing: .clock, bus: bus)
    }

    public func setAudioBus(_ bus: (any AudioBus)?) { self.bus.set(bus) }

    /// Always true: rendering discards.
    public var isRenderingAvailable: Bool { true }
    public func initializeRendering() throws(AudioDeviceError) {
        guard renderFormat.isSupported else { throw .unsupportedFormat(renderFormat) }
        try render.initialize { () throws(AudioDeviceError) in DiscardRenderWorker(format: renderFormat) }
    }
    public var isRenderingInitialized: Bool { render.isInitialized }
    public func startRendering() throws(AudioDeviceError) { try render.start() }
    public func stopRendering() { render.stop() }
    public var isRendering: Bool { render.isRunning }
    /// Zero: nothing is played.
    public var estimatedRenderDelay: Duration { .zero }

    /// Always true.
    public var isCaptureAvailable: Bool { true }
    public func initializeCapture() throws(AudioDeviceError) {
        guard captureFormat.isSupported else { throw .unsupportedFormat(captureFormat) }
        try capture.initialize { () throws(AudioDeviceError) in
            GeneratedCaptureWorker(format: captureFormat, signal: .noise(amplitude: amplitude), seed: seed)
        }
    }
    public var isCaptureInitialized: Bool { capture.isInitialized }
    public func startCapture() throws(AudioDeviceError) { try capture.start() }
    public func stopCapture() { capture.stop() }
    public var isCapturing: Bool { capture.isRunning }
    /// Zero: the noise is generated when the period is due.
    public var estimatedCaptureDelay: Duration { .zero }

    /// Periods moved so far.
    public var statistics: AudioDeviceStatistics { AudioDeviceStatistics(capture: capture, render: render) }
}
