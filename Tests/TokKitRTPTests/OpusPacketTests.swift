import Testing
import TokKitRTP

@Suite struct OpusPacketTests {
    static func parse(_ bytes: [UInt8]) throws(RTPError) -> OpusPacket {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(RTPError) -> OpusPacket in try OpusPacket(parsing: raw) }
        }
        return try result.get()
    }

    @Test func code0FramesOfEveryConfiguration() throws {
        // RFC 6716 §3.1 Table 2: 10/20/40/60 ms SILK, 10/20 ms Hybrid, 2.5/5/10/20 ms CELT.
        let expected = [480, 960, 1920, 2880, 480, 960, 1920, 2880, 480, 960, 1920, 2880,
                        480, 960, 480, 960, 120, 240, 480, 960, 120, 240, 480, 960, 120, 240, 480, 960,
                        120, 240, 480, 960]
        for config in 0..<32 {
            let packet = try Self.parse([UInt8(config << 3), 0xAA, 0xBB])
            #expect(packet.sampleCount == expected[config], "config \(config)")
            #expect(packet.frameCount == 1 && packet.code == 0 && !packet.isStereo)
        }
        // What Chromium sends: config 31 (CELT FB 20 ms)... or SILK/Hybrid; a TOC-only packet is DTX.
        let fb = try Self.parse([0xFC])
        #expect(fb.isStereo && fb.mode == .celt && fb.bandwidth == .fullband && fb.sampleCount == 960)
        let hybrid = try Self.parse([0x78, 1, 2, 3])
        #expect(hybrid.mode == .hybrid && hybrid.bandwidth == .fullband && hybrid.sampleCount == 960)
        #expect(try Self.parse([0x20]).bandwidth == .mediumband)
        #expect(try Self.parse([0x08]).bandwidth == .narrowband && (try Self.parse([0x08])).mode == .silk)
    }

    @Test func codes1And2() throws {
        #expect(try Self.parse([0x79, 1, 2, 3, 4]).sampleCount == 1920)
        #expect(throws: RTPError.invalidField(.opusPacket, field: "code 1 odd payload length", value: 3)) {
            try Self.parse([0x79, 1, 2, 3])
        }
        let two = try Self.parse([0x7A, 0x02, 1, 2, 3, 4, 5])
        #expect(two.frameCount == 2 && two.sampleCount == 1920)
        // Two-byte length: 252 + 4 × 1 = 256 bytes of first frame.
        let long = try Self.parse([0x7A, 252, 1] + [UInt8](repeating: 7, count: 256 + 10))
        #expect(long.frameCount == 2)
        #expect(throws: RTPError.truncated(.opusPacket, needed: 3, available: 2)) { try Self.parse([0x7A, 253]) }
        #expect(throws: RTPError.truncated(.opusPacket, needed: 8, available: 7)) {
            try Self.parse([0x7A, 0x06, 1, 2, 3, 4, 5])
        }
    }

    @Test func code3FrameCountPaddingAndVBR() throws {
        // CBR, 3 frames of 20 ms, 2 bytes each.
        let cbr = try Self.parse([0x7B, 0x03, 1, 1, 2, 2, 3, 3])
        #expect(cbr.frameCount == 3 && cbr.sampleCount == 2880)
        // CBR with padding: p set, 2 padding bytes announced, then 2 frames of 1 byte, then the padding.
        #expect(try Self.parse([0x7B, 0x42, 0x02, 9, 9, 0, 0]).frameCount == 2)
        // Padding length 255 means 254 more and another length byte (§3.2.5).
        let padded = [0x7B, 0x41, 255, 1, 9] + [UInt8](repeating: 0, count: 255)
        #expect(try Self.parse(padded).frameCount == 1)
        // VBR: 3 frames, lengths 1 and 2 coded, last takes the rest (3).
        #expect(try Self.parse([0x7B, 0x83, 1, 2, 0xA, 0xB, 0xB, 0xC, 0xC, 0xC]).frameCount == 3)

        #expect(throws: RTPError.invalidField(.opusPacket, field: "code 3 frame count", value: 0)) {
            try Self.parse([0x7B, 0x00])
        }
        // 7 × 20 ms = 140 ms > 120 ms (R5); 48 × 2.5 ms = 120 ms is fine.
        #expect(throws: RTPError.invalidField(.opusPacket, field: "code 3 frame count", value: 7)) {
            try Self.parse([0x7B, 0x07])
        }
        #expect(try Self.parse([0x83, 0x30]).sampleCount == 5760)
        #expect(throws: RTPError.invalidField(.opusPacket, field: "code 3 CBR length not a multiple of M", value: 5)) {
            try Self.parse([0x7B, 0x02, 1, 2, 3, 4, 5])
        }
        #expect(throws: RTPError.truncated(.opusPacket, needed: 2, available: 1)) { try Self.parse([0x7B]) }
        #expect(throws: RTPError.self) { try Self.parse([0x7B, 0x42, 0x09, 1, 2]) }  // padding past the end
        #expect(throws: RTPError.self) { try Self.parse([0x7B, 0x83, 200, 2, 1]) }  // VBR length past the end
        #expect(throws: RTPError.truncated(.opusPacket, needed: 1, available: 0)) { try Self.parse([]) }
    }

    @Test func framesLongerThan1275BytesAreRejected() {
        #expect(throws: RTPError.invalidField(.opusPacket, field: "frame length", value: 1276)) {
            try Self.parse([0x78] + [UInt8](repeating: 0, count: 1276))
        }
    }
}
