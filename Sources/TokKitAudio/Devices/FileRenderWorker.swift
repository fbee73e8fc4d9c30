import Synchronization

/// A render side that reads one period per tick from the bus and hands it on: written to a WAV file (header
/// fixed up on stop) and/or given to a sink, in that order.
final class FileRenderWorker: AudioSideWorker, @unchecked Sendable {
    /// Receives each period read from the bus, on the render thread; valid only during the call.
    typealias Sink = @Sendable (UnsafeBufferPointer<Int16>) -> Void

    let writer: WAVWriter?
    /// Frames written to `writer` so far; readable from any thread (the writer itself is the render thread's alone).
    let framesWritten = Atomic<Int>(0)
    private let sink: Sink?
    private let buffer: PeriodBuffer

    /// Writes to `writer` (if any) and calls `sink` (if any) with every period of `format`.
    init(format: AudioFormat, writer: WAVWriter?, sink: Sink? = nil) {
        self.writer = writer
        self.sink = sink
        buffer = PeriodBuffer(format: format)
    }

    convenience init(writer: WAVWriter) { self.init(format: writer.format, writer: writer) }

    func transferPeriod(_ bus: (any AudioBus)?) throws(AudioDeviceError) -> Bool {
        if let bus { bus.readRenderData(buffer.samples) } else { buffer.silence() }
        if let writer {
            do throws(WAVError) { try writer.write(buffer.readOnly) } catch {
                throw .deviceFailed("\(writer.path): \(error)")
            }
            framesWritten.store(writer.framesWritten, ordering: .relaxed)
        }
        sink?(buffer.readOnly)
        return true
    }

    /// Makes the file complete as it stands (a failure here leaves sizes that ``WAVReader`` still copes with).
    func didStop() { try? writer?.updateHeader() }
}
