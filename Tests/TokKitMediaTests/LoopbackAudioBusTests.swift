import Testing
@testable import TokKitMedia

@Suite struct LoopbackAudioBusTests {
    @Test func capturedAudioComesBackOnTheRenderSide() {
        let bus = LoopbackAudioBus(format: .stereo, capacity: .milliseconds(50))
        #expect(bus.ring.capacity == 2_400 * 2)
        let period = (0..<960).map { Int16($0) }
        period.withUnsafeBufferPointer { bus.writeCaptureData($0) }
        #expect(bus.bufferedFrames == 480)
        var out = [Int16](repeating: 0, count: 960)
        #expect(out.withUnsafeMutableBufferPointer { bus.readRenderData($0) } == 480)
        #expect(out == period)
    }

    @Test func renderAheadOfCaptureGetsSilence() {
        let bus = LoopbackAudioBus(format: .voice)
        [1, 2, 3].withUnsafeBufferPointer { bus.writeCaptureData($0) }
        var out = [Int16](repeating: 7, count: 480)
        #expect(out.withUnsafeMutableBufferPointer { bus.readRenderData($0) } == 3)
        #expect(Array(out.prefix(3)) == [1, 2, 3] && out.dropFirst(3).allSatisfy { $0 == 0 })
        #expect(bus.missingFrames == 477)
    }

    @Test func captureAheadOfRenderDropsTheOldest() {
        let bus = LoopbackAudioBus(format: .voice, capacity: .milliseconds(20))   // two periods
        for p in 0..<5 {
            let period = [Int16](repeating: Int16(p), count: 480)
            period.withUnsafeBufferPointer { bus.writeCaptureData($0) }
        }
        #expect(bus.droppedFrames == 3 * 480 && bus.bufferedFrames == 960)
        var out = [Int16](repeating: 0, count: 960)
        _ = out.withUnsafeMutableBufferPointer { bus.readRenderData($0) }
        #expect(Array(out.prefix(480)) == [Int16](repeating: 3, count: 480))
        #expect(Array(out.suffix(480)) == [Int16](repeating: 4, count: 480))
    }

    @Test func capacityIsAtLeastOnePeriod() {
        #expect(LoopbackAudioBus(format: .voice, capacity: .zero).ring.capacity == 480)
        #expect(LoopbackAudioBus(format: .voice, capacity: .milliseconds(-5)).ring.capacity == 480)
    }
}
