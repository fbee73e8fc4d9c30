import Testing
import TokKitAudio

/// Builds WAV files chunk by chunk, right or wrong.
private struct WAVBuilder {
    var bytes: [UInt8] = []
    mutating func tag(_ s: String) { bytes += Array(s.utf8) }
    mutating func u16(_ v: UInt16) { bytes += [UInt8(v & 0xFF), UInt8(v >> 8)] }
    mutating func u32(_ v: UInt32) { for i in 0..<4 { bytes.append(UInt8((v >> (8 * UInt32(i))) & 0xFF)) } }
    mutating func riff() { tag("RIFF"); u32(0); tag("WAVE") }
    mutating func fmt(tag formatTag: UInt16 = 1, channels: UInt16 = 1, rate: UInt32 = 48_000, bits: UInt16 = 16,
                      blockAlign: UInt16? = nil) {
        tag("fmt "); u32(16)
        u16(formatTag); u16(channels); u32(rate); u32(rate * UInt32(channels) * 2)
        u16(blockAlign ?? channels * 2); u16(bits)
    }
    mutating func extensible(subFormat: UInt16, bits: UInt16 = 16) {
        tag("fmt "); u32(40)
        u16(0xFFFE); u16(2); u32(48_000); u32(192_000); u16(4); u16(bits)
        u16(22); u16(bits); u32(3)
        u16(subFormat); bytes += [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
    }
    mutating func chunk(_ id: String, _ body: [UInt8]) {
        tag(id); u32(UInt32(body.count)); bytes += body
        if body.count % 2 == 1 { bytes.append(0) }
    }
    mutating func data(_ samples: [Int16], declared: UInt32? = nil) {
        tag("data"); u32(declared ?? UInt32(samples.count * 2)); bytes += samples.withUnsafeBytes { Array($0) }
    }
}

@Suite struct WAVHeaderTests {
    @Test func canonicalHeaderRoundTrips() throws {
        var file = WAVHeader.canonicalBytes(format: .stereo, dataByteCount: 1_920)
        #expect(file.count == WAVHeader.canonicalSize)
        file += [UInt8](repeating: 1, count: 1_920)
        let h = try WAVHeader(parsing: file)
        #expect(h.format == .stereo && h.dataOffset == 44 && h.dataByteCount == 1_920 && h.frameCount == 480)
    }

    @Test func skipsOtherChunksIncludingOddSizedOnes() throws {
        var b = WAVBuilder()
        b.riff()
        b.chunk("LIST", Array("INFOISFT\u{5}\0\0\0Lavf5".utf8))   // odd size, padded
        b.fmt(channels: 2, rate: 16_000)
        b.chunk("fact", [1, 0, 0, 0])
        b.data([1, 2, 3, 4])
        let h = try WAVHeader(parsing: b.bytes)
        #expect(h.format == AudioFormat(sampleRate: 16_000, numberOfChannels: 2))
        #expect(h.frameCount == 2)
        #expect(Array(b.bytes[h.dataOffset..<h.dataOffset + 2]) == [1, 0])
    }

    @Test func acceptsExtensiblePCMOnly() throws {
        var pcm = WAVBuilder(); pcm.riff(); pcm.extensible(subFormat: 1); pcm.data([0, 0])
        #expect(try WAVHeader(parsing: pcm.bytes).format == .stereo)
        var float = WAVBuilder(); float.riff(); float.extensible(subFormat: 3); float.data([0, 0])
        #expect(throws: WAVError.unsupportedEncoding(formatTag: 3)) { try WAVHeader(parsing: float.bytes) }
    }

    @Test func unfinishedDataChunkIsCutToTheFile() throws {
        var b = WAVBuilder(); b.riff(); b.fmt(); b.data([5, 6, 7], declared: 0xFFFF_FFFF)
        b.bytes.append(0x42)   // half a frame at the end is not a frame
        let h = try WAVHeader(parsing: b.bytes)
        #expect(h.frameCount == 3 && h.dataByteCount == 6)
    }

    @Test func rejectsWhatIsNot16BitPCM() {
        func parse(_ build: (inout WAVBuilder) -> Void) throws(WAVError) {
            var b = WAVBuilder()
            build(&b)
            _ = try WAVHeader(parsing: b.bytes)
        }
        #expect(throws: WAVError.notWAV) { try parse { _ in } }
        #expect(throws: WAVError.notWAV) { try parse { $0.tag("RIFX"); $0.u32(0); $0.tag("WAVE") } }
        #expect(throws: WAVError.notWAV) { try parse { $0.tag("RIFF"); $0.u32(0); $0.tag("AVI ") } }
        #expect(throws: WAVError.missingChunk("fmt ")) { try parse { $0.riff(); $0.data([1]) } }
        #expect(throws: WAVError.missingChunk("data")) { try parse { $0.riff(); $0.fmt() } }
        #expect(throws: WAVError.unsupportedEncoding(formatTag: 3)) { try parse { $0.riff(); $0.fmt(tag: 3); $0.data([]) } }
        #expect(throws: WAVError.unsupportedEncoding(formatTag: 7)) { try parse { $0.riff(); $0.fmt(tag: 7); $0.data([]) } }
        #expect(throws: WAVError.unsupportedBitsPerSample(24)) {
            try parse { $0.riff(); $0.fmt(bits: 24, blockAlign: 3); $0.data([]) }
        }
        #expect(throws: WAVError.unsupportedBitsPerSample(8)) { try parse { $0.riff(); $0.fmt(bits: 8); $0.data([]) } }
        #expect(throws: WAVError.invalidFormat("0 channels")) { try parse { $0.riff(); $0.fmt(channels: 0); $0.data([]) } }
        #expect(throws: WAVError.invalidFormat("sample rate 0")) { try parse { $0.riff(); $0.fmt(rate: 0); $0.data([]) } }
        #expect(throws: WAVError.invalidFormat("block alignment 4 for 1 channels of 16 bits")) {
            try parse { $0.riff(); $0.fmt(blockAlign: 4); $0.data([]) }
        }
        // A `fmt ` chunk too short, or longer than the file.
        #expect(throws: WAVError.malformedChunk("fmt ")) { try parse { $0.riff(); $0.chunk("fmt ", [1, 0, 1, 0]) } }
        #expect(throws: WAVError.malformedChunk("fmt ")) {
            try parse { $0.riff(); $0.tag("fmt "); $0.u32(1_000); $0.u16(1) }
        }
    }

    @Test func garbageNeverTrapsOrReadsOutOfBounds() {
        // Bounded fuzz: random bytes behind a valid RIFF/WAVE prefix, and random mutations of a valid file.
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }
        var valid = WAVBuilder(); valid.riff(); valid.chunk("LIST", [1, 2, 3]); valid.fmt(); valid.data(pattern(count: 20))
        var parsed = 0
        for round in 0..<5_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = Array("RIFF\0\0\0\0WAVE".utf8) + (0..<Int(next() % 80)).map { _ in UInt8(truncatingIfNeeded: next()) }
            } else {
                bytes = valid.bytes
                for _ in 0..<(1 + next() % 4) { bytes[Int(next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: next()) }
                bytes.removeLast(Int(next() % 8))
            }
            if let h = try? WAVHeader(parsing: bytes) {
                parsed += 1
                #expect(h.dataOffset >= 12 && h.dataOffset + h.dataByteCount <= bytes.count)
                #expect(h.dataByteCount % h.bytesPerFrame == 0)
            }
        }
        #expect(parsed > 0)   // the mutations leave some files valid
    }
}
