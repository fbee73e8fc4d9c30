/// A render side that writes every period it reads from the bus to a WAV file, fixing up the header on stop.
final class FileRenderWorker: AudioSideWorker, @unchecked Sendable {
    let writer: WAVWriter
    private let buffer: PeriodBuffer

    init(writer: WAVWriter) {
        self.writer = writer
        buffer = PeriodBuffer(format: writer.format)
    }

    func transferPeriod(_ bus: (any AudioBus)?) throws(AudioDeviceError) -> Bool {
        if let bus { bus.readRenderData(buffer.samples) } else { buffer.silence() }
        do throws(WAVError) { try writer.write(buffer.readOnly) } catch {
            throw .deviceFailed("\(writer.path): \(error)")
        }
        return true
    }

    /// Makes the file complete as it stands (a failure here leaves sizes that ``WAVReader`` still copes with).
    func didStop() { try? writer.updateHeader() }
}
