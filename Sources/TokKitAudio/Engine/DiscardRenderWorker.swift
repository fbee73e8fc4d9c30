/// A render side that takes one period per tick from the bus and throws it away (a device with no speaker).
final class DiscardRenderWorker: AudioSideWorker, @unchecked Sendable {
    private let buffer: PeriodBuffer

    init(format: AudioFormat) { buffer = PeriodBuffer(format: format) }

    func transferPeriod(_ bus: (any AudioBus)?) throws(AudioDeviceError) -> Bool {
        bus?.readRenderData(buffer.samples)
        return true
    }
}
