import Synchronization

/// A capture side that reads its periods from a WAV file, looping or going silent at the end.
final class FileCaptureWorker: AudioSideWorker, @unchecked Sendable {
    private let reader: WAVReader
    private let loop: Bool
    private let buffer: PeriodBuffer
    /// Set once a non-looping file has run out.
    let finished = Atomic<Bool>(false)

    init(reader: WAVReader, loop: Bool) {
        self.reader = reader
        self.loop = loop
        buffer = PeriodBuffer(format: reader.format)
    }

    func transferPeriod(_ bus: (any AudioBus)?) throws(AudioDeviceError) -> Bool {
        buffer.silence()
        let frames = buffer.frames, channels = buffer.channels
        var filled = 0
        // Each round reads at least one frame or ends, so frames + 2 rounds always suffice.
        for _ in 0..<(frames + 2) where filled < frames {
            let rest = UnsafeMutableBufferPointer(rebasing: buffer.samples[(filled * channels)...])
            let n: Int
            do throws(WAVError) { n = try reader.read(into: rest) } catch {
                throw .invalidFile(path: reader.path, reason: error.description)
            }
            filled += n
            if n == 0 {
                guard loop, reader.frameCount > 0 else { finished.store(true, ordering: .relaxed); break }
                reader.rewind()
            }
        }
        bus?.writeCaptureData(buffer.readOnly)
        return true
    }
}
