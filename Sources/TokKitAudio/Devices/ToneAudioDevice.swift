import Synchronization

/// An ``AudioDevice`` for demos and tests: capture is a sine tone, render records what the bus offers into a
/// WAV file and/or hands each played period to a ``RenderSink`` (when either is given; e.g. to measure what a
/// subscriber hears). One 10 ms period per tick of each side's own clock (`tone-capture` /
/// `tone-render` threads), so it behaves like a sound card running in real time.
///
/// A subscriber that hears the tone of a publisher using this device proves the whole audio path: capture →
/// Opus → RTP → SRTP → decode → mix → render. Control calls come from one thread at a time and never from inside
/// a bus callback; the getters may be read from any thread.
public final class ToneAudioDevice: AudioDevice {
    /// Receives each period the device plays (interleaved Int16 of ``renderFormat``), on the `tone-render` thread,
    /// right after it was read from the bus (and written to the render file). The buffer is valid only during the
    /// call and is reused for the next period; the sink must not block, and should not allocate.
    public typealias RenderSink = @Sendable (UnsafeBufferPointer<Int16>) -> Void

    /// The tone's frequency in Hz.
    public let frequency: Double
    /// Peak sample value of the tone.
    public let amplitude: Int16
    /// The WAV file rendered into, if any.
    public let renderFile: String?
    /// Where each played period goes, if anywhere.
    public let renderSink: RenderSink?
    /// The format of the tone, as given to the initializer.
    public let captureFormat: AudioFormat
    /// The same format as ``captureFormat``, in which the render file and sink receive what is played.
    public let renderFormat: AudioFormat

    private let bus = AudioBusSlot()
    private let capture: AudioDeviceSide<GeneratedCaptureWorker>
    private let render: AudioDeviceSide<FileRenderWorker>

    /// A device capturing a `frequency` Hz sine of peak `amplitude` (about -12 dBFS by default) and, when
    /// `renderFile` is given, recording what it plays there; when `renderSink` is given, handing it every period
    /// played. Without either, rendering is not available.
    public init(frequency: Double = 440, amplitude: Int16 = 8_000, format: AudioFormat = .voice,
                renderFile: String? = nil, renderSink: RenderSink? = nil) {
        self.frequency = frequency
        self.amplitude = amplitude
        self.renderFile = renderFile
        self.renderSink = renderSink
        captureFormat = format
        renderFormat = format
        capture = AudioDeviceSide(threadName: "tone-capture", pacing: .clock, bus: bus)
        render = AudioDeviceSide(threadName: "tone-render", pacing: .clock, bus: bus)
    }

    public func setAudioBus(_ bus: (any AudioBus)?) { self.bus.set(bus) }

    // MARK: Rendering

    /// True when a render file or a render sink was given.
    public var isRenderingAvailable: Bool { renderFile != nil || renderSink != nil }

    public func initializeRendering() throws(AudioDeviceError) {
        guard isRenderingAvailable else { throw .noSuchDevice("(no render file or sink)") }
        guard renderFormat.isSupported else { throw .unsupportedFormat(renderFormat) }
        let format = renderFormat, renderFile = self.renderFile, sink = renderSink
        try render.initialize { () throws(AudioDeviceError) in
            guard let renderFile else { return FileRenderWorker(format: format, writer: nil, sink: sink) }
            do throws(WAVError) {
                return FileRenderWorker(format: format, writer: try WAVWriter(path: renderFile, format: format),
                                        sink: sink)
            } catch {
                throw .invalidFile(path: renderFile, reason: error.description)
            }
        }
    }

    public var isRenderingInitialized: Bool { render.isInitialized }
    public func startRendering() throws(AudioDeviceError) { try render.start() }
    public func stopRendering() { render.stop() }
    public var isRendering: Bool { render.isRunning }
    /// Zero: nothing waits in a hardware buffer.
    public var estimatedRenderDelay: Duration { .zero }
    /// Frames written to the render file so far.
    public var renderedFrames: Int { render.worker?.framesWritten.load(ordering: .relaxed) ?? 0 }

    // MARK: Capture

    /// Always true.
    public var isCaptureAvailable: Bool { true }

    public func initializeCapture() throws(AudioDeviceError) {
        guard captureFormat.isSupported else { throw .unsupportedFormat(captureFormat) }
        let format = captureFormat, signal = GeneratedCaptureWorker.Signal.tone(frequency: frequency, amplitude: amplitude)
        try capture.initialize { () throws(AudioDeviceError) in
            GeneratedCaptureWorker(format: format, signal: signal, seed: 1)
        }
    }

    public var isCaptureInitialized: Bool { capture.isInitialized }
    public func startCapture() throws(AudioDeviceError) { try capture.start() }
    public func stopCapture() { capture.stop() }
    public var isCapturing: Bool { capture.isRunning }
    /// Zero: the tone is generated when the period is due.
    public var estimatedCaptureDelay: Duration { .zero }

    /// Periods moved so far.
    public var statistics: AudioDeviceStatistics { AudioDeviceStatistics(capture: capture, render: render) }
}
