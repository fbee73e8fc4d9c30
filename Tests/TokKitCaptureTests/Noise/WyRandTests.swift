import Testing
@testable import TokKitCapture

@Suite struct WyRandTests {
    @Test func isDeterministicAndSpreadsBits() {
        var a = WyRand(seed: 1), b = WyRand(seed: 1), c = WyRand(seed: 2)
        let xs = (0..<1000).map { _ in a.next() }
        #expect(xs == (0..<1000).map { _ in b.next() })
        #expect(xs != (0..<1000).map { _ in c.next() })
        #expect(Set(xs).count == 1000)
        // Each of the 64 bits is set in roughly half of the outputs.
        for bit in 0..<64 {
            let ones = xs.filter { $0 >> UInt64(bit) & 1 == 1 }.count
            #expect((400...600).contains(ones), "bit \(bit) set \(ones)/1000 times")
        }
    }
}
