import Testing
@testable import TokKitMedia

@Suite struct AudioRingBufferTests {
    private func write(_ ring: AudioRingBuffer, _ samples: [Int16]) {
        samples.withUnsafeBufferPointer { ring.write($0) }
    }

    private func read(_ ring: AudioRingBuffer, _ count: Int) -> (samples: [Int16], real: Int) {
        var out = [Int16](repeating: 99, count: count)
        let real = out.withUnsafeMutableBufferPointer { ring.read(into: $0) }
        return (out, real)
    }

    @Test func fifoAcrossTheWrapPoint() {
        let ring = AudioRingBuffer(capacity: 8)
        for round in 0..<20 {   // 5 in, 5 out: the indices wrap many times
            let chunk = (0..<5).map { Int16(round * 5 + $0) }
            write(ring, chunk)
            #expect(ring.count == 5)
            let (got, real) = read(ring, 5)
            #expect(got == chunk && real == 5)
        }
        #expect(ring.droppedSamples == 0 && ring.missingSamples == 0)
    }

    @Test func overflowDropsTheOldest() {
        let ring = AudioRingBuffer(capacity: 8)
        write(ring, [1, 2, 3, 4, 5, 6])
        write(ring, [7, 8, 9, 10])
        #expect(ring.count == 8 && ring.droppedSamples == 2)
        #expect(read(ring, 8).samples == [3, 4, 5, 6, 7, 8, 9, 10])
        // A single write larger than the ring keeps only its newest samples.
        write(ring, [0, 0])
        write(ring, Array(1...20))
        #expect(ring.droppedSamples == 2 + 2 + 12)
        #expect(read(ring, 8).samples == Array(13...20))
    }

    @Test func underflowFillsWithSilence() {
        let ring = AudioRingBuffer(capacity: 8)
        write(ring, [5, 6, 7])
        let (got, real) = read(ring, 6)
        #expect(got == [5, 6, 7, 0, 0, 0] && real == 3)
        #expect(ring.missingSamples == 3)
        #expect(read(ring, 2) == ([0, 0], 0))
        #expect(ring.missingSamples == 5)
    }

    @Test func emptyAndDegenerateInputs() {
        let ring = AudioRingBuffer(capacity: 0)   // raised to 1
        #expect(ring.capacity == 1)
        write(ring, [])
        #expect(read(ring, 0).real == 0)
        write(ring, [4, 5])
        #expect(read(ring, 1).samples == [5])
        ring.removeAll()
        #expect(ring.count == 0)
    }

    @Test func concurrentWriterAndReaderLoseNothingWhenItFits() async {
        let ring = AudioRingBuffer(capacity: 4_800)
        let total = 480 * 500
        async let produced: Void = Task.detached {
            var next = 0
            var spins = 0
            var chunk = [Int16](repeating: 0, count: 480)
            while next < total && spins < 10_000_000 {
                spins += 1
                guard ring.count <= 4_800 - 480 else { await Task.yield(); continue }
                for i in 0..<480 { chunk[i] = Int16(truncatingIfNeeded: next + i) }
                chunk.withUnsafeBufferPointer { ring.write($0) }
                next += 480
            }
        }.value
        var received: [Int16] = []
        received.reserveCapacity(total)
        var buffer = [Int16](repeating: 0, count: 480)
        var spins = 0
        while received.count < total && spins < 10_000_000 {
            spins += 1
            guard ring.count >= 480 else { await Task.yield(); continue }
            _ = buffer.withUnsafeMutableBufferPointer { ring.read(into: $0) }
            received += buffer
        }
        await produced
        #expect(received.count == total)
        #expect(received == (0..<total).map { Int16(truncatingIfNeeded: $0) })
        #expect(ring.droppedSamples == 0)
    }
}
