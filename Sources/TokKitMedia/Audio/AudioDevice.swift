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
    var isRenderingAvailable: Bool { get }
    func initializeRendering() throws(AudioDeviceError)
    var isRenderingInitialized: Bool { get }
    func startRendering() throws(AudioDeviceError)
    func stopRendering()
    var isRendering: Bool { get }
    /// How long a sample read from the bus now takes to be heard.
    var estimatedRenderDelay: Duration { get }

    // MARK: Capture (recording)
    var isCaptureAvailable: Bool { get }
    func initializeCapture() throws(AudioDeviceError)
    var isCaptureInitialized: Bool { get }
    func startCapture() throws(AudioDeviceError)
    func stopCapture()
    var isCapturing: Bool { get }
    /// How long ago a sample written to the bus now was heard by the microphone.
    var estimatedCaptureDelay: Duration { get }
}
