import Testing
import TokKitRTP

@Suite struct RTCPGenericNACKTests {
    /// Hand-built in the layout Chromium sends for a VP8 stream: PID 0x1F44 with BLP 0x0005 (0x1F45 and 0x1F47
    /// lost too), and a second entry across the 16-bit wrap.
    static let golden = hex("81 cd 00 04 00 00 00 01 99 a8 7d 2d 1f 44 00 05 ff fe 80 01")

    @Test func expandsPIDAndBitmask() throws {
        let nack = try RTCPGenericNACK(parsing: Self.golden)
        #expect(nack.senderSSRC == 1)
        #expect(nack.mediaSSRC == 0x99A8_7D2D)
        #expect(nack.items == [.init(packetID: 0x1F44, lostBitmask: 5), .init(packetID: 0xFFFE, lostBitmask: 0x8001)])
        #expect(nack.lostSequenceNumbers == [0x1F44, 0x1F45, 0x1F47, 0xFFFE, 0xFFFF, 14])
    }

    @Test func buildsFromLostSequenceNumbers() throws {
        let nack = RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 0x99A8_7D2D,
                                   lostSequenceNumbers: [0x1F44, 0x1F45, 0x1F47, 0xFFFE, 0xFFFF, 14])
        #expect(try nack.serialized() == Self.golden)
    }

    @Test func coversEveryNumberInAnyOrder() {
        let lost: [UInt16] = [500, 10, 11, 65535, 0, 27, 26, 10, 9000]
        let nack = RTCPGenericNACK(senderSSRC: 0, mediaSSRC: 0, lostSequenceNumbers: lost)
        #expect(Set(nack.lostSequenceNumbers) == Set(lost))
        // In increasing order (modulo 2^16) the encoding is compact: 17 consecutive numbers need one entry.
        let run = (0 ..< 17).map { UInt16(65530) &+ UInt16($0) }
        let compact = RTCPGenericNACK(senderSSRC: 0, mediaSSRC: 0, lostSequenceNumbers: run)
        #expect(compact.items == [.init(packetID: 65530, lostBitmask: 0xFFFF)])
        #expect(compact.lostSequenceNumbers == run)
    }

    @Test func walksTheSameNumbersAsTheList() {
        let nack = RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: [65534, 65535, 3, 40, 41, 60])
        var walked: [UInt16] = []
        nack.forEachLostSequenceNumber { walked.append($0) }
        #expect(walked == nack.lostSequenceNumbers && walked == [65534, 65535, 3, 40, 41, 60])
    }

    @Test func writesIntoABufferWithoutBuildingItems() throws {
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = try buffer.withUnsafeMutableBytes {
            try RTCPGenericNACK.write(senderSSRC: 1, mediaSSRC: 0x99A8_7D2D,
                                      lostSequenceNumbers: [0x1F44, 0x1F45, 0x1F47, 0xFFFE, 0xFFFF, 14], into: $0)
        }
        #expect(Array(buffer.prefix(n)) == Self.golden)
        var tiny = [UInt8](repeating: 0, count: 16)
        #expect(throws: RTPError.bufferTooSmall(needed: 20, available: 16)) {
            try tiny.withUnsafeMutableBytes {
                try RTCPGenericNACK.write(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: [1, 100], into: $0)
            }
        }
        #expect(throws: RTPError.valueOutOfRange(field: "NACK entry count", value: 0)) {
            try tiny.withUnsafeMutableBytes {
                try RTCPGenericNACK.write(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: [], into: $0)
            }
        }
    }
}
