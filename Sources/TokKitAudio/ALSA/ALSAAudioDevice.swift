import Synchronization

/// An ``AudioDevice`` on ALSA PCMs: captures from one named PCM and plays to another, interleaved Int16 in
/// 10 ms periods, 48 kHz mono by default.
///
/// ## Threads and pacing
/// Each started side runs one named data thread (`alsa-capture`, `alsa-render`). With ``AudioPacing/device``
/// (real sound cards) the thread blocks in `snd_pcm_wait` + `snd_pcm_readi`/`snd_pcm_writei`, so the card's
/// clock sets the pace. With ``AudioPacing/clock`` a ``PeriodicThread`` moves one period every 10 ms: for
/// plugins that never block, such as `null` and `file`, which tests use through ``init(configuration:options:)``.
///
/// ## Lifecycle
/// `initialize` opens and configures the PCM (errors: ``AudioDeviceError/noSuchDevice(_:)``,
/// ``AudioDeviceError/deviceBusy(_:)``, ``AudioDeviceError/unsupportedFormat(_:)``); `start` prepares it and
/// starts the thread (``AudioDeviceError/notInitialized`` before `initialize`); `stop` joins the thread and drops
/// pending frames but keeps the PCM open, so `start` may follow again. ``releaseCapture()`` /
/// ``releaseRendering()`` close a side's PCM (deinit closes everything).
///
/// Over/underruns are recovered and counted in ``statistics``. An unrecoverable error (card unplugged) ends
/// that side: `isCapturing`/`isRendering` turn false and ``captureFailure``/``renderFailure`` tell why.
///
/// Control calls come from one thread at a time and never from inside a bus callback; the getters may be read
/// from any thread.
public final class ALSAAudioDevice: AudioDevice {
    /// What the device opens and how. A plain value, fixed when the device is created.
    public struct Options: Sendable, Hashable {
        /// The capture PCM name; nil for a device without capture.
        public var captureDevice: String?
        /// The playback PCM name; nil for a device without playback.
        public var renderDevice: String?
        /// The format the capture PCM is opened in.
        public var captureFormat: AudioFormat
        /// The format the playback PCM is opened in.
        public var renderFormat: AudioFormat
        /// Buffer size in 10 ms periods (at least 2; the card may round it).
        public var periodsPerBuffer: Int
        /// Who sets the rhythm: the card (real hardware) or the device's own clock (plugins that do not block).
        public var pacing: AudioPacing

        /// Options for the `"default"` PCM both ways, 48 kHz mono, a 4-period buffer, paced by the card, unless given.
        public init(
            captureDevice: String? = "default", renderDevice: String? = "default",
            captureFormat: AudioFormat = .voice, renderFormat: AudioFormat = .voice,
            periodsPerBuffer: Int = 4, pacing: AudioPacing = .device
        ) {
            self.captureDevice = captureDevice
            self.renderDevice = renderDevice
            self.captureFormat = captureFormat
            self.renderFormat = renderFormat
            self.periodsPerBuffer = periodsPerBuffer
            self.pacing = pacing
        }
    }

    /// What the device opens and how, as given to the initializer.
    public let options: Options
    /// The private configuration the PCM names are looked up in, or nil for the system's.
    public let configuration: ALSAConfiguration?

    private let bus = AudioBusSlot()
    private let capture: AudioDeviceSide<ALSAStreamWorker>
    private let render: AudioDeviceSide<ALSAStreamWorker>

    /// A device on the system's ALSA configuration (`"default"` unless `options` name other PCMs).
    public init(options: Options = Options(), configuration: ALSAConfiguration? = nil) {
        self.options = options
        self.configuration = configuration
        capture = AudioDeviceSide(threadName: "alsa-capture", pacing: options.pacing, bus: bus)
        render = AudioDeviceSide(threadName: "alsa-render", pacing: options.pacing, bus: bus)
    }

    /// A device whose PCM names are defined by the ALSA configuration `text` (see ``ALSAConfiguration``).
    public convenience init(configuration text: String, options: Options) throws(AudioDeviceError) {
        self.init(options: options, configuration: try ALSAConfiguration(text))
    }

    public func setAudioBus(_ bus: (any AudioBus)?) { self.bus.set(bus) }

    /// ``Options/captureFormat``.
    public var captureFormat: AudioFormat { options.captureFormat }
    /// ``Options/renderFormat``.
    public var renderFormat: AudioFormat { options.renderFormat }

    // MARK: Rendering

    /// True when ``Options/renderDevice`` names a PCM (whether it opens is known at `initializeRendering`).
    public var isRenderingAvailable: Bool { options.renderDevice != nil }

    public func initializeRendering() throws(AudioDeviceError) {
        guard let name = options.renderDevice else { throw .noSuchDevice("(no playback device)") }
        try render.initialize { () throws(AudioDeviceError) in
            try ALSAStreamWorker(
                name: name, direction: .playback, format: options.renderFormat,
                periods: options.periodsPerBuffer, pacing: options.pacing, configuration: configuration)
        }
    }

    public var isRenderingInitialized: Bool { render.isInitialized }
    public func startRendering() throws(AudioDeviceError) { try render.start() }
    public func stopRendering() { render.stop() }
    public var isRendering: Bool { render.isRunning }
    /// What the playback buffer holds ahead of the speaker, as the PCM last reported it (`snd_pcm_delay`); zero before
    /// it runs.
    public var estimatedRenderDelay: Duration { render.worker?.delay ?? .zero }
    /// Closes the playback PCM (stopping first); `initializeRendering` may open it again.
    public func releaseRendering() { render.release() }
    /// Why rendering stopped on its own, if it did.
    public var renderFailure: AudioDeviceError? { render.failure }

    // MARK: Capture

    /// True when ``Options/captureDevice`` names a PCM (whether it opens is known at `initializeCapture`).
    public var isCaptureAvailable: Bool { options.captureDevice != nil }

    public func initializeCapture() throws(AudioDeviceError) {
        guard let name = options.captureDevice else { throw .noSuchDevice("(no capture device)") }
        try capture.initialize { () throws(AudioDeviceError) in
            try ALSAStreamWorker(
                name: name, direction: .capture, format: options.captureFormat,
                periods: options.periodsPerBuffer, pacing: options.pacing, configuration: configuration)
        }
    }

    public var isCaptureInitialized: Bool { capture.isInitialized }
    public func startCapture() throws(AudioDeviceError) { try capture.start() }
    public func stopCapture() { capture.stop() }
    public var isCapturing: Bool { capture.isRunning }
    /// How long captured audio waits in the capture buffer, as the PCM last reported it (`snd_pcm_delay`); zero before
    /// it runs.
    public var estimatedCaptureDelay: Duration { capture.worker?.delay ?? .zero }
    /// Closes the capture PCM (stopping first); `initializeCapture` may open it again.
    public func releaseCapture() { capture.release() }
    /// Why capture stopped on its own, if it did.
    public var captureFailure: AudioDeviceError? { capture.failure }

    // MARK: Statistics

    /// Periods moved so far, and xruns recovered by the open PCMs (those counts restart when a side is released).
    public var statistics: AudioDeviceStatistics {
        var s = AudioDeviceStatistics(capture: capture, render: render)
        s.captureOverruns = capture.worker?.xruns.load(ordering: .relaxed) ?? 0
        s.renderUnderruns = render.worker?.xruns.load(ordering: .relaxed) ?? 0
        return s
    }
}
