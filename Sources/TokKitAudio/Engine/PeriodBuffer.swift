/// One preallocated period of interleaved Int16 samples, owned by one device side and touched only by that
/// side's data thread (or by the control thread while the side is stopped). Zero-filled at creation.
final class PeriodBuffer: @unchecked Sendable {
    /// The samples (frames × channels).
    let samples: UnsafeMutableBufferPointer<Int16>
    /// Frames in the buffer.
    let frames: Int
    /// Interleaved channels per frame.
    let channels: Int

    init(format: AudioFormat) {
        frames = format.framesPerPeriod
        channels = format.numberOfChannels
        samples = .allocate(capacity: frames * channels)
        samples.initialize(repeating: 0)
    }

    deinit { samples.deallocate() }

    /// Sets every sample to zero.
    @inline(__always)
    func silence() { samples.update(repeating: 0) }

    /// The samples, read-only.
    var readOnly: UnsafeBufferPointer<Int16> { UnsafeBufferPointer(samples) }
}
