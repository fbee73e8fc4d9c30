/// Captures and plays audio for every publisher and subscriber of the process, as the SDK's `OTAudioDevice`.
///
/// One device serves the whole process (set it with TokKit's `AudioDeviceManager` before connecting). TokKit
/// calls ``setAudioBus(_:)`` first, then drives each side through *available → initialize → start → stop*.
/// Control calls come from one thread at a time. While started, the device moves one 10 ms period per call
/// between its hardware (or file, or clock) and the bus **on threads of its own**: it calls
/// ``AudioBus/writeCaptureData(_:)`` from a capture thread and ``AudioBus/readRenderData(_:)`` from a render
/// thread, paced by the hardware or, where there is none, by its own clock.
///
/// A device that fails while running (unplugged, no longer readable) stops that side and reports it through
/// ``isCapturing`` / ``isRendering`` turning false; it never traps.
public protocol AudioDevice: AnyObject, Sendable {
    /// Sets the bus the device exchanges samples with (nil detaches it).
    func setAudioBus(_ bus: (any AudioBus)?)

    /// The format captured samples are written in.
    var captureFormat: AudioFormat { get }
    /// The format samples to play are read in.
    var renderFormat: AudioFormat { get }

    // MARK: Rendering (playback)
    /// Whether the device has a playback side at all (a PCM, a file, a sink). For applications: TokKit does not
    /// consult it, and goes on without sound when rendering cannot start.
    var isRenderingAvailable: Bool { get }
    /// Opens and configures the playback side. TokKit calls it when the first subscriber needs audio and
    /// ``isRenderingInitialized`` is false; a failure is logged and subscribers play nothing.
    /// - Throws: ``AudioDeviceError`` when the output cannot be opened or does not take ``renderFormat``.
    func initializeRendering() throws(AudioDeviceError)
    /// Whether ``initializeRendering()`` succeeded.
    var isRenderingInitialized: Bool { get }
    /// Starts the render thread, which calls ``AudioBus/readRenderData(_:)`` once per 10 ms period until
    /// ``stopRendering()``.
    /// - Throws: ``AudioDeviceError/notInitialized`` before ``initializeRendering()``, or why the output could not
    ///   start.
    func startRendering() throws(AudioDeviceError)
    /// Stops the render thread; when it returns, no ``AudioBus/readRenderData(_:)`` call runs or follows. The side
    /// stays initialized, so ``startRendering()`` may follow.
    func stopRendering()
    /// Whether the render thread runs; turns false by itself when the output fails.
    var isRendering: Bool { get }
    /// How long a sample read from the bus now takes to be heard.
    var estimatedRenderDelay: Duration { get }

    // MARK: Capture (recording)
    /// Whether the device has a capture side at all (a PCM, a file, a generator). For applications: TokKit does
    /// not consult it, and goes on without sound when capture cannot start.
    var isCaptureAvailable: Bool { get }
    /// Opens and configures the capture side. TokKit calls it when the first publisher is published and
    /// ``isCaptureInitialized`` is false; a failure is logged and publishers send no sound.
    /// - Throws: ``AudioDeviceError`` when the input cannot be opened or does not take ``captureFormat``.
    func initializeCapture() throws(AudioDeviceError)
    /// Whether ``initializeCapture()`` succeeded.
    var isCaptureInitialized: Bool { get }
    /// Starts the capture thread, which calls ``AudioBus/writeCaptureData(_:)`` once per 10 ms period until
    /// ``stopCapture()``.
    /// - Throws: ``AudioDeviceError/notInitialized`` before ``initializeCapture()``, or why the input could not start.
    func startCapture() throws(AudioDeviceError)
    /// Stops the capture thread; when it returns, no ``AudioBus/writeCaptureData(_:)`` call runs or follows. The side
    /// stays initialized, so ``startCapture()`` may follow.
    func stopCapture()
    /// Whether the capture thread runs; turns false by itself when the input fails.
    var isCapturing: Bool { get }
    /// How long ago a sample written to the bus now was heard by the microphone.
    var estimatedCaptureDelay: Duration { get }
}
