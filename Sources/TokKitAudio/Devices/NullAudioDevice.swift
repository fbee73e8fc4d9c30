import Synchronization

/// An ``AudioDevice`` with no hardware: capture writes silence, render reads and discards, one 10 ms period per
/// tick of its own clock (a ``PeriodicThread`` per side, `null-capture` / `null-render`).
///
/// This is the default device on a machine without a sound card, so publishing and subscribing work anywhere.
/// It never fails: initialize, start and stop always succeed (start before initialize throws
/// ``AudioDeviceError/notInitialized`` like every device). Control calls come from one thread at a time and
/// never from inside a bus callback; the getters may be read from any thread.
public final class NullAudioDevice: AudioDevice {
    /// The format of the silence captured.
    public let captureFormat: AudioFormat
    /// The format read from the bus and discarded.
    public let renderFormat: AudioFormat

    private let bus = AudioBusSlot()
    private let capture: AudioDeviceSide<GeneratedCaptureWorker>
    private let render: AudioDeviceSide<DiscardRenderWorker>

    /// A device exchanging `captureFormat` and `renderFormat` (48 kHz mono by default).
    public init(captureFormat: AudioFormat = .voice, renderFormat: AudioFormat = .voice) {
        self.captureFormat = captureFormat
        self.renderFormat = renderFormat
        capture = AudioDeviceSide(threadName: "null-capture", pacing: .clock, bus: bus)
        render = AudioDeviceSide(threadName: "null-render", pacing: .clock, bus: bus)
    }

    public func setAudioBus(_ bus: (any AudioBus)?) { self.bus.set(bus) }

    /// Always true.
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
            GeneratedCaptureWorker(format: captureFormat, signal: .silence, seed: 0)
        }
    }
    public var isCaptureInitialized: Bool { capture.isInitialized }
    public func startCapture() throws(AudioDeviceError) { try capture.start() }
    public func stopCapture() { capture.stop() }
    public var isCapturing: Bool { capture.isRunning }
    /// Zero: silence is generated when the period is due.
    public var estimatedCaptureDelay: Duration { .zero }

    /// Periods moved so far.
    public var statistics: AudioDeviceStatistics { AudioDeviceStatistics(capture: capture, render: render) }
}
