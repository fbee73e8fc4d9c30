import Testing
import TokKitRecording

/// The Opus reorder window alone: sequence numbers in, the order they come out, by hand.
@Suite struct OpusReorderWindowTests {
    /// Feeds packets numbered `sequence` (timestamp 960 × n, a one-byte payload) and returns the numbers emitted,
    /// then those a flush emits when `flushing`.
    static func run(_ window: OpusReorderWindow, _ sequence: [UInt16], flushing: Bool = false) throws -> [UInt16] {
        var out: [UInt16] = []
        let emit: (UnsafeRawBufferPointer, UInt32) throws(RecordingError) -> Void = { payload, timestamp in
            #expect(payload.count == 1 && payload[0] == UInt8(truncatingIfNeeded: timestamp / 960), "payload kept")
            out.append(UInt16(timestamp / 960))
        }
        for n in sequence {
            let byte = [UInt8(truncatingIfNeeded: n)]
            try byte.withUnsafeBytes { try window.insert(sequenceNumber: n, timestamp: UInt32(n) * 960, payload: $0, emit: emit) }
        }
        if flushing { try window.flush(emit: emit) }
        return out
    }

    @Test func packetsInOrderGoStraightThrough() throws {
        let window = OpusReorderWindow()
        #expect(try Self.run(window, [1, 2, 3]) == [1, 2, 3])
        #expect(window.counters == OpusReorderWindow.Counters())
    }

    @Test func aPacketAfterItsSuccessorIsPlaced() throws {
        let window = OpusReorderWindow()
        #expect(try Self.run(window, [1, 3, 2, 4]) == [1, 2, 3, 4])
        #expect(window.counters.packetsHeld == 1 && window.counters.gapsFilled == 1 && window.counters.gapsGivenUp == 0)
    }

    @Test func aLossIsGivenUpOnceTheWindowIsFull() throws {
        let window = OpusReorderWindow(slots: 3)
        // 2 is lost: 3, 4, 5 wait for it; 6 would be a fourth, so 2 is given up and all come out in order.
        #expect(try Self.run(window, [1, 3, 4, 5]) == [1])
        #expect(try Self.run(window, [6]) == [3, 4, 5, 6])
        #expect(window.counters.gapsGivenUp == 1 && window.counters.packetsHeld == 3)
        // 2 comes after all: passed on as it is (the recorder's timeline drops it as not after the previous).
        #expect(try Self.run(window, [2, 7]) == [2, 7])
    }

    @Test func duplicatesOfAHeldPacketAreDropped() throws {
        let window = OpusReorderWindow()
        #expect(try Self.run(window, [1, 3, 3, 2]) == [1, 2, 3])
        #expect(window.counters.duplicatesDropped == 1)
    }

    @Test func orderSurvivesTheSequenceNumberWrap() throws {
        let window = OpusReorderWindow()
        #expect(try Self.run(window, [65_533, 65_534, 0, 65_535, 1]) == [65_533, 65_534, 65_535, 0, 1])
    }

    @Test func aFlushEmitsWhatIsHeldAndAResetForgetsIt() throws {
        let window = OpusReorderWindow()
        #expect(try Self.run(window, [1, 3, 5], flushing: true) == [1, 3, 5])
        #expect(window.counters.gapsGivenUp == 2, "2 and 4")
        let other = OpusReorderWindow()
        #expect(try Self.run(other, [1, 3]) == [1])
        other.reset()
        #expect(try Self.run(other, [100, 101], flushing: true) == [100, 101], "3 forgotten, 100 starts afresh")
    }
}
