/// An ``AudioBus`` that plays back what was captured: a device's capture side feeds a device's render side
/// (the same device or another one), through a bounded ``AudioRingBuffer``.
///
/// Both sides must use the bus's ``format`` (the bus does not convert rates or channel counts). When the render
/// side falls behind, the oldest captured audio is dropped; when it runs ahead, it gets silence. Latency is
/// whatever is buffered, at most `capacity`.
///
/// Thread-safe and allocation-free after `init`: capture and render threads call it concurrently.
public final class LoopbackAudioBus: AudioBus {
    /// The format both sides exchange.
    public let format: AudioFormat
    /// The samples in flight.
    public let ring: AudioRingBuffer

    /// A bus holding at most `capacity` of audio in `format` (rounded down to whole frames, at least one period).
    public init(format: AudioFormat = .voice, capacity: Duration = .milliseconds(200)) {
        self.format = format
        let channels = max(1, format.numberOfChannels)
        let frames = Int(capacity.nanoseconds / 1_000_000) * max(0, format.sampleRate) / 1_000
        ring = AudioRingBuffer(capacity: max(frames, max(1, format.framesPerPeriod)) * channels)
    }

    /// Appends one period of captured samples to ``ring``, dropping the oldest when it is full. Called on the
    /// capture thread; copies before returning.
    public func writeCaptureData(_ samples: UnsafeBufferPointer<Int16>) {
        ring.write(samples)
    }

    /// Fills `buffer` with the oldest captured samples, silence where there are none, and returns how many frames
    /// were real audio. Called on the render thread.
    @discardableResult
    public func readRenderData(_ buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        ring.read(into: buffer) / max(1, format.numberOfChannels)
    }

    /// Frames captured but not yet played.
    public var bufferedFrames: Int { ring.count / max(1, format.numberOfChannels) }
    /// Frames dropped because the render side fell behind.
    public var droppedFrames: Int { ring.droppedSamples / max(1, format.numberOfChannels) }
    /// Frames of silence played because the capture side fell behind.
    public var missingFrames: Int { ring.missingSamples / max(1, format.numberOfChannels) }
}
