import Testing
import TokKitRTP

@Suite struct RTPHeaderTests {
    func serialize(_ header: RTPHeader, payload: [UInt8] = [], padding: Int = 0) throws -> [UInt8] {
        var out = [UInt8](repeating: 0xEE, count: 1500)
        let n = try payload.withUnsafeBytes { p in
            try out.withUnsafeMutableBytes { try header.write(payload: p, paddingLength: padding, into: $0) }
        }
        return Array(out.prefix(n))
    }

    @Test func writesTheChromiumGoldenPacket() throws {
        var header = RTPHeader(marker: true, payloadType: 96, sequenceNumber: 0x1F40, timestamp: 768_000,
                               ssrc: 0x99A8_7D2D)
        header.setExtension(id: 2, [0x12, 0x34, 0x56])
        header.setExtension(id: 3, [0x00, 0x2A])
        header.setExtension(id: 4, Array("1".utf8))
        let bytes = try serialize(header, payload: [0x90, 0x80, 0x00, 0x9D, 0x01, 0x2A])
        #expect(bytes == RTPPacketViewTests.chromiumVP8)
        #expect(header.serializedLength == 28)
    }

    @Test func roundTripsCSRCsTwoByteExtensionsAndPadding() throws {
        let header = RTPHeader(
            marker: false, payloadType: 111, sequenceNumber: 65535, timestamp: .max, ssrc: 7, csrcs: [1, 2, 3],
            extensions: [RTPHeaderExtension(id: 200, value: [1, 2, 3]), RTPHeaderExtension(id: 3, value: [])])
        #expect(header.extensionForm == .twoByte(appBits: 0))
        let bytes = try serialize(header, payload: Array(0 ..< 10), padding: 5)
        #expect(bytes.count == 12 + 12 + 4 + 8 + 10 + 5)
        #expect(bytes.last == 5)
        try withRTP(bytes) { view in
            #expect(RTPHeader(view) == header)
            #expect(Array(view.payload) == Array(0 ..< 10))
            #expect(view.paddingLength == 5)
        }
    }

    @Test func setExtensionReusesStorageOfTheSameLength() {
        var header = RTPHeader(payloadType: 96, sequenceNumber: 0, timestamp: 0, ssrc: 1)
        header.setExtension(id: 3, [0, 1])
        let before = header.extensions[0].value.withUnsafeBufferPointer { $0.baseAddress }
        header.setExtension(id: 3, [0, 2])
        let after = header.extensions[0].value.withUnsafeBufferPointer { $0.baseAddress }
        #expect(before == after)
        #expect(header.extensions == [RTPHeaderExtension(id: 3, value: [0, 2])])
    }

    @Test func rejectsWhatTheWireCannotCarry() throws {
        var out = [UInt8](repeating: 0, count: 100)
        func write(_ h: RTPHeader) -> RTPError? {
            out.withUnsafeMutableBytes { raw in
                do throws(RTPError) {
                    _ = try h.write(into: raw)
                    return nil
                } catch { return error }
            }
        }
        #expect(write(RTPHeader(payloadType: 128, sequenceNumber: 0, timestamp: 0, ssrc: 0))
            == .valueOutOfRange(field: "payload type", value: 128))
        #expect(write(RTPHeader(payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0, csrcs: Array(0 ..< 16)))
            == .valueOutOfRange(field: "CSRC count", value: 16))
        #expect(write(RTPHeader(payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0,
                                extensions: [RTPHeaderExtension(id: 0, value: [1])]))
            == .valueOutOfRange(field: "extension id", value: 0))
        #expect(write(RTPHeader(payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0, csrcs: Array(0 ..< 15)))
            == nil)
        var small = [UInt8](repeating: 0, count: 11)
        #expect(throws: RTPError.bufferTooSmall(needed: 12, available: 11)) {
            try small.withUnsafeMutableBytes { try RTPHeader(payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0).write(into: $0) }
        }
        #expect(throws: RTPError.valueOutOfRange(field: "padding length", value: 256)) {
            _ = try serialize(RTPHeader(payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0), padding: 256)
        }
    }
}
