import Testing
import TokKitRTP

@Suite struct RTPPacketExtensionRewriteTests {
    static func packet(extensions: [RTPHeaderExtension]) throws -> [UInt8] {
        let header = RTPHeader(payloadType: 96, sequenceNumber: 7, timestamp: 9, ssrc: 0x1234, extensions: extensions)
        var bytes = [UInt8](repeating: 0, count: 64)
        let payload: [UInt8] = [1, 2, 3]
        let length = try payload.withUnsafeBytes { p in
            try bytes.withUnsafeMutableBytes { try header.write(payload: p, into: $0) }
        }
        return Array(bytes.prefix(length))
    }

    @Test func overwritesTheTwoByteElementInPlace() throws {
        var bytes = try Self.packet(extensions: [RTPHeaderExtension(id: 1, value: [9]),
                                                 RTPHeaderExtension(id: 3, value: [0, 0])])
        let before = bytes
        let changed = try bytes.withUnsafeMutableBytes { try RTPPacketView.setExtension(id: 3, 0xBEEF, in: $0) }
        #expect(changed)
        #expect(bytes.count == before.count)
        let sequence = try bytes.withUnsafeBytes { b in
            try RTPPacketView(parsing: b).transportWideSequenceNumber(RTPHeaderExtensionMap(transportWideCC: 3))
        }
        #expect(sequence == 0xBEEF)
        // Only the two value bytes differ.
        #expect(zip(before, bytes).filter { $0 != $1 }.count == 2)
    }

    @Test func leavesPacketsWithoutTheElementAloneAndRejectsGarbage() throws {
        var plain = try Self.packet(extensions: [])
        let copy = plain
        #expect(try plain.withUnsafeMutableBytes { try RTPPacketView.setExtension(id: 3, 1, in: $0) } == false)
        var wrongSize = try Self.packet(extensions: [RTPHeaderExtension(id: 3, value: [0, 0, 0])])
        #expect(try wrongSize.withUnsafeMutableBytes { try RTPPacketView.setExtension(id: 3, 1, in: $0) } == false)
        #expect(plain == copy)
        var garbage: [UInt8] = [0x90, 0, 0, 0]
        #expect(throws: RTPError.self) {
            try garbage.withUnsafeMutableBytes { try RTPPacketView.setExtension(id: 3, 1, in: $0) }
        }
    }
}
