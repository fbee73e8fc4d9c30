import Testing
import TokKitRTP

/// One packet as the packetizer emitted it.
struct VP8TestPacket {
    var sequenceNumber: UInt16
    var timestamp: UInt32
    var marker: Bool
    var payload: [UInt8]
}

/// A fake encoded VP8 frame of `size` bytes with a valid payload header (key frames carry start code and size).
func vp8Frame(size: Int, key: Bool, using rng: inout SeededGenerator) -> [UInt8] {
    var frame = (0..<size).map { _ in UInt8.random(in: 0...255, using: &rng) }
    frame[0] = key ? 0x10 : 0x11
    if key && size >= 10 { frame.replaceSubrange(3..<10, with: [0x9D, 0x01, 0x2A, 0x80, 0x02, 0xE0, 0x01]) }
    return frame
}

/// Packetizes `frames` (timestamps 3000 apart, sequence numbers from `firstSequence`).
func packetize(_ frames: [[UInt8]], with packetizer: VP8Packetizer, firstSequence: UInt16,
               firstTimestamp: UInt32 = 1000) -> [VP8TestPacket] {
    var packets: [VP8TestPacket] = []
    var seq = firstSequence
    for (i, frame) in frames.enumerated() {
        let ts = firstTimestamp &+ UInt32(i) * 3000
        _ = frame.withUnsafeBytes { bytes in
            packetizer.packetize(bytes) { payload, marker in
                packets.append(VP8TestPacket(sequenceNumber: seq, timestamp: ts, marker: marker,
                                             payload: Array(payload)))
                seq &+= 1
            }
        }
    }
    return packets
}

@Suite struct VP8PacketizerTests {
    @Test func goldenFragmentsEqualSizesPictureIDAndMarker() throws {
        let packetizer = try VP8Packetizer(maximumPayloadSize: 8, pictureID: 0x7FFF)
        let frame: [UInt8] = [0x10, 1, 2, 3, 4, 5, 6, 7, 8, 9]
        var out: [([UInt8], Bool)] = []
        let count = frame.withUnsafeBytes { bytes in
            packetizer.packetize(bytes) { payload, marker in out.append((Array(payload), marker)) }
        }
        // 10 bytes, 4 per payload: 3 payloads of 3, 3 and 4 bytes (the larger last, as libwebrtc).
        #expect(count == 3 && out.count == 3)
        #expect(out[0].0 == hex("90 80 ff ff 10 01 02") && !out[0].1)
        #expect(out[1].0 == hex("80 80 ff ff 03 04 05") && !out[1].1)
        #expect(out[2].0 == hex("80 80 ff ff 06 07 08 09") && out[2].1)
        // The picture ID wraps at 15 bits.
        #expect(packetizer.pictureID == 0)
        let single: [UInt8] = [0x11, 0xAA]
        _ = single.withUnsafeBytes { bytes in
            packetizer.packetize(bytes, nonReference: true) { payload, marker in out.append((Array(payload), marker)) }
        }
        #expect(out[3].0 == hex("b0 80 80 00 11 aa") && out[3].1)
    }

    @Test func sizesDifferByAtMostOneAndStayWithinTheBudget() throws {
        let packetizer = try VP8Packetizer()
        for size in [1, 1183, 1184, 1185, 4000, 40_000] {
            var sizes: [Int] = []
            let frame = [UInt8](repeating: 0x11, count: size)
            let count = frame.withUnsafeBytes { bytes in
                packetizer.packetize(bytes) { payload, _ in sizes.append(payload.count) }
            }
            #expect(count == packetizer.packetCount(frameLength: size) && count == sizes.count)
            #expect(sizes.allSatisfy { $0 <= VP8Packetizer.defaultMaximumPayloadSize })
            #expect(sizes.reduce(0, +) - 4 * count == size)
            #expect((sizes.max() ?? 0) - (sizes.min() ?? 0) <= 1)
        }
        #expect(packetizer.packetCount(frameLength: 1184) == 1 && packetizer.packetCount(frameLength: 1185) == 2)
    }

    @Test func emptyFrameEmitsNothingAndBadBudgetIsATypedError() throws {
        let packetizer = try VP8Packetizer(pictureID: 5)
        let n = packetizer.packetize(UnsafeRawBufferPointer(start: nil, count: 0)) { _, _ in Issue.record("emitted") }
        #expect(n == 0 && packetizer.pictureID == 5)
        #expect(throws: RTPError.valueOutOfRange(field: "VP8 maximum payload size", value: 4)) {
            try VP8Packetizer(maximumPayloadSize: 4)
        }
    }

    /// A temporal layer's frame: every payload carries the 6-byte descriptor (X; I, L, T; the 15-bit picture ID;
    /// TL0PICIDX, increased at each layer-0 frame and wrapping at 256; TID and Y), which the parser reads back.
    @Test func temporalLayerFramesCarryTL0PicIdxTidAndSyncOnEveryPacket() throws {
        let packetizer = try VP8Packetizer(maximumPayloadSize: 10, pictureID: 0x1234, tl0PictureIndex: 0xFE)
        var out: [[UInt8]] = []
        func send(_ size: Int, tid: UInt8, sync: Bool) {
            _ = [UInt8](repeating: 0x11, count: size).withUnsafeBytes { bytes in
                packetizer.packetize(bytes, temporalLayer: tid, layerSync: sync) { payload, _ in out.append(Array(payload)) }
            }
        }
        send(8, tid: 0, sync: false)  // 4 bytes of frame per payload: 2 payloads
        #expect(out.count == 2)
        #expect(out[0] == hex("90 e0 92 34 ff 00 11 11 11 11"))
        #expect(out[1] == hex("80 e0 92 34 ff 00 11 11 11 11"))
        send(3, tid: 2, sync: true)
        #expect(out[2] == hex("90 e0 92 35 ff a0 11 11 11"))
        send(3, tid: 1, sync: true)
        #expect(out[3] == hex("90 e0 92 36 ff 60 11 11 11"))
        send(3, tid: 2, sync: false)
        #expect(out[4] == hex("90 e0 92 37 ff 80 11 11 11"))
        send(3, tid: 0, sync: false)  // TL0PICIDX wraps
        #expect(out[5] == hex("90 e0 92 38 00 00 11 11 11"))
        #expect(packetizer.tl0PictureIndex == 0)
        // The parser reads every field back.
        let parsed = try out[2].withUnsafeBytes { try VP8PayloadDescriptor(parsing: $0) }
        #expect(parsed.pictureID == .long(0x1235) && parsed.tl0PictureIndex == 0xFF && parsed.temporalLayer == 2
            && parsed.layerSync && parsed.keyIndex == nil && parsed.startsFrame && parsed.serializedLength == 6)
        #expect(packetizer.packetCount(frameLength: 8, temporal: true) == 2
            && packetizer.packetCount(frameLength: 8) == 2 && packetizer.packetCount(frameLength: 13) == 3
            && packetizer.packetCount(frameLength: 13, temporal: true) == 4)
    }

    @Test func emitErrorsPropagateTyped() throws {
        struct Stop: Error {}
        let packetizer = try VP8Packetizer(maximumPayloadSize: 10)
        var calls = 0
        #expect(throws: Stop.self) {
            try [UInt8](repeating: 0x11, count: 100).withUnsafeBytes { bytes in
                try packetizer.packetize(bytes) { (_, _) throws(Stop) in
                    calls += 1
                    if calls == 2 { throw Stop() }
                }
            }
        }
        #expect(calls == 2)
    }
}
