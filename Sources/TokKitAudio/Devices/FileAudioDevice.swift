import Synchronization

/// An ``AudioDevice`` on WAV files: capture plays a 16-bit PCM WAV file into the bus (optionally looping),
/// render records what the bus offers into a new WAV file. Both sides are paced by their own clock, one 10 ms
/// period per tick (`file-capture` / `file-render` threads), so a file plays in real time.
///
/// - Capture: the file's own rate and channels are the ``captureFormat`` (it must be a supported
///   ``AudioFormat``, else ``AudioDeviceError/unsupportedFormat(_:)`` at `initializeCapture`). Without looping,
///   the periods after the end are silence and ``isCaptureFileFinished`` turns true.
/// - Render: `initializeRendering` creates (truncates) the file; every stop fixes up the header so the file is a
///   valid WAV whenever rendering is stopped; deinit stops and closes it.
///
/// File problems are ``AudioDeviceError/invalidFile(path:reason:)``. Control calls come from one thread at a
/// time and never from inside a bus callback; the getters may be read from any thread.
public final class FileAudioDevice: AudioDevice {
    /// The WAV file captured from, if any.
    public let captureFile: String?
    /// The WAV file rendered into, if any.
    public let renderFile: String?
    /// The capture file's rate and channels (48 kHz mono without a capture file).
    public let captureFormat: AudioFormat
    /// The format the render file is written in.
    public let renderFormat: AudioFormat

    private let loop: Bool
    private let bus = AudioBusSlot()
    private let capture: AudioDeviceSide<FileCaptureWorker>
    private let render: AudioDeviceSide<FileRenderWorker>

    /// A device capturing from `captureFile` (opened and checked now) and rendering into `renderFile` in
    /// `renderFormat`. A side whose file is nil is not available.
    public init(
        captureFile: String? = nil, loop: Bool = false, renderFile: String? = nil, renderFormat: AudioFormat = .voice
    ) throws(AudioDeviceError) {
        // Checked now; each initializeCapture opens it again for its own worker (a reader is one thread's).
        captureFormat = try captureFile.map { path throws(AudioDeviceError) in try Self.open(path).format } ?? .voice
        self.captureFile = captureFile
        self.renderFile = renderFile
        self.loop = loop
        self.renderFormat = renderFormat
        capture = AudioDeviceSide(threadName: "file-capture", pacing: .clock, bus: bus)
        render = AudioDeviceSide(threadName: "file-render", pacing: .clock, bus: bus)
    }

    public func setAudioBus(_ bus: (any AudioBus)?) { self.bus.set(bus) }

    // MARK: Rendering

    /// True when a render file was given.
    public var isRenderingAvailable: Bool { renderFile != nil }

    public func initializeRendering() throws(AudioDeviceError) {
        guard let renderFile else { throw .noSuchDevice("(no render file)") }
        guard renderFormat.isSupported else { throw .unsupportedFormat(renderFormat) }
        try render.initialize { () throws(AudioDeviceError) in
            do throws(WAVError) {
                return FileRenderWorker(writer: try WAVWriter(path: renderFile, format: renderFormat))
            } catch {
                throw .invalidFile(path: renderFile, reason: error.description)
            }
        }
    }

    public var isRenderingInitialized: Bool { render.isInitialized }
    public func startRendering() throws(AudioDeviceError) { try render.start() }
    public func stopRendering() { render.stop() }
    public var isRendering: Bool { render.isRunning }
    /// Zero: a file has no output latency.
    public var estimatedRenderDelay: Duration { .zero }
    /// Frames written to the render file so far.
    public var renderedFrames: Int { render.worker?.framesWritten.load(ordering: .relaxed) ?? 0 }

    // MARK: Capture

    /// True when a capture file was given.
    public var isCaptureAvailable: Bool { captureFile != nil }

    public func initializeCapture() throws(AudioDeviceError) {
        guard let captureFile else { throw .noSuchDevice("(no capture file)") }
        guard captureFormat.isSupported else { throw .unsupportedFormat(captureFormat) }
        try capture.initialize { () throws(AudioDeviceError) in
            FileCaptureWorker(reader: try Self.open(captureFile), loop: loop)
        }
    }

    private static func open(_ path: String) throws(AudioDeviceError) -> WAVReader {
        do throws(WAVError) { return try WAVReader(path: path) } catch {
            throw .invalidFile(path: path, reason: error.description)
        }
    }

    public var isCaptureInitialized: Bool { capture.isInitialized }
    public func startCapture() throws(AudioDeviceError) { try capture.start() }
    public func stopCapture() { capture.stop() }
    public var isCapturing: Bool { capture.isRunning }
    /// Zero: a file has no input latency.
    public var estimatedCaptureDelay: Duration { .zero }
    /// Whether a non-looping capture file has been played to its end (the device now captures silence).
    public var isCaptureFileFinished: Bool { capture.worker?.finished.load(ordering: .relaxed) ?? false }

    /// Periods moved so far.
    public var statistics: AudioDeviceStatistics { AudioDeviceStatistics(capture: capture, render: render) }
}
