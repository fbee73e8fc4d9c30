import Testing
@testable import TokKitCapture

@Suite struct PNGWriterTests {
    func crc(_ bytes: [UInt8]) -> UInt32 {
        var c = PNGWriter.CRC32()
        bytes.withUnsafeBytes { c.update($0) }
        return c.value
    }

    func adler(_ bytes: [UInt8]) -> UInt32 {
        var a = PNGWriter.Adler32()
        bytes.withUnsafeBytes { a.update($0) }
        return a.value
    }

    @Test func crc32MatchesKnownValues() {
        #expect(crc(Array("123456789".utf8)) == 0xCBF4_3926)  // the CRC-32/ISO-HDLC check value
        #expect(crc(Array("IEND".utf8)) == 0xAE42_6082)  // every PNG ends with it
        #expect(crc([]) == 0)
        // Slicing-by-4 agrees with the bytewise definition at every length and alignment.
        let data = (0..<1031).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        for n in [1, 3, 4, 5, 8, 1031] {
            var reference: UInt32 = 0xFFFF_FFFF
            for b in data.prefix(n) {
                reference ^= UInt32(b)
                for _ in 0..<8 { reference = reference & 1 != 0 ? 0xEDB8_8320 ^ (reference >> 1) : reference >> 1 }
            }
            #expect(crc(Array(data.prefix(n))) == ~reference)
            var split = PNGWriter.CRC32()
            data.prefix(n).withUnsafeBytes { b in
                split.update(UnsafeRawBufferPointer(rebasing: b[0..<(n / 2)]))
                split.update(UnsafeRawBufferPointer(rebasing: b[(n / 2)..<n]))
            }
            #expect(split.value == ~reference)
        }
    }

    @Test func adler32MatchesKnownValues() {
        #expect(adler(Array("Wikipedia".utf8)) == 0x11E6_0398)
        #expect(adler([]) == 1)
        // Long runs of 0xFF are where a late modulo would overflow.
        let ff = [UInt8](repeating: 0xFF, count: 100_000)
        var s1: UInt64 = 1, s2: UInt64 = 0
        for b in ff { s1 = (s1 + UInt64(b)) % 65521; s2 = (s2 + s1) % 65521 }
        #expect(adler(ff) == UInt32(s2 << 16 | s1))
    }

    @Test func fileStructureFollowsRFC2083() throws {
        let png = try PNGWriter.encode(width: 3, height: 2, color: .grayscale, pixels: [1, 2, 3, 4, 5, 6])
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(Array(png[8..<33]) == [0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 0, 3, 0, 0, 0, 2, 8, 0, 0, 0, 0] + beBytes(crc(Array(png[12..<29]))))
        // IDAT: zlib header, one final stored block of 8 bytes (two rows with filter byte 0), Adler-32.
        let raw: [UInt8] = [0, 1, 2, 3, 0, 4, 5, 6]
        let zlib: [UInt8] = [0x78, 0x01, 0x01, 8, 0, 0xF7, 0xFF] + raw + beBytes(adler(raw))
        #expect(Array(png[33..<41]) == beBytes(UInt32(zlib.count)) + Array("IDAT".utf8))
        #expect(Array(png[41..<(41 + zlib.count)]) == zlib)
        #expect(Array(png.suffix(12)) == [0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82])
        #expect(png.count == 33 + 12 + zlib.count + 12)
    }

    @Test func ffmpegDecodesGrayscaleToTheExactPixels() throws {
        // 300x250 = 75 250 raw bytes: two stored blocks, the split falling inside a row.
        let (w, h) = (300, 250)
        let pixels = (0..<(w * h)).map { UInt8(truncatingIfNeeded: $0 % w &+ ($0 / w) &* 3) }
        #expect(try decode(PNGWriter.encode(width: w, height: h, color: .grayscale, pixels: pixels), as: "gray") == pixels)
    }

    @Test func ffmpegDecodesRGBToTheExactPixels() throws {
        let (w, h) = (97, 33)
        let pixels = (0..<(w * h * 3)).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ $0 / 7) }
        #expect(try decode(PNGWriter.encode(width: w, height: h, color: .rgb, pixels: pixels), as: "rgb24") == pixels)
        #expect(try decode(PNGWriter.encode(width: 1, height: 1, color: .rgb, pixels: [9, 8, 7]), as: "rgb24") == [9, 8, 7])
    }

    @Test func paddedRowsAreCutToTheImage() throws {
        let padded: [UInt8] = [1, 2, 99, 99, 3, 4, 99, 99]
        let png = try padded.withUnsafeBytes { try PNGWriter.encode(width: 2, height: 2, color: .grayscale, pixels: $0, bytesPerRow: 4) }
        #expect(png == (try PNGWriter.encode(width: 2, height: 2, color: .grayscale, pixels: [1, 2, 3, 4])))
    }

    @Test func badInputIsATypedError() throws {
        #expect(throws: MediaFileError.invalidImageSize(width: 0, height: 4)) {
            try PNGWriter.encode(width: 0, height: 4, color: .grayscale, pixels: [])
        }
        #expect(throws: MediaFileError.invalidImageSize(width: 1 << 40, height: 1 << 40)) {
            try PNGWriter.encode(width: 1 << 40, height: 1 << 40, color: .rgb, pixels: [])
        }
        #expect(throws: MediaFileError.invalidArgument("5 bytes of pixels, image needs 6")) {
            try PNGWriter.encode(width: 3, height: 2, color: .grayscale, pixels: [1, 2, 3, 4, 5])
        }
        #expect(throws: MediaFileError.invalidArgument("2 bytes per row for 3 pixels of rgb")) {
            try [UInt8](repeating: 0, count: 64).withUnsafeBytes {
                try PNGWriter.encode(width: 3, height: 2, color: .rgb, pixels: $0, bytesPerRow: 2)
            }
        }
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        #expect(throws: MediaFileError.noSuchFile(path: dir + "/none/x.png")) {
            try [UInt8](repeating: 0, count: 4).withUnsafeBytes {
                try PNGWriter.write(to: dir + "/none/x.png", width: 2, height: 2, color: .grayscale, pixels: $0)
            }
        }
    }

    func beBytes(_ v: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }

    /// ffmpeg's PNG decoder (zlib inflate, so the Adler-32 is checked; CRCs checked too) → raw pixels.
    func decode(_ png: [UInt8], as pixelFormat: String) throws -> [UInt8] {
        let dir = try RendererTestKit.temporaryDirectory()
        defer { RendererTestKit.removeDirectory(dir) }
        try RendererTestKit.writeFile(dir + "/x.png", png)
        return try RendererTestKit.run(
            "ffmpeg", ["-v", "error", "-err_detect", "crccheck+explode", "-i", dir + "/x.png", "-f", "rawvideo", "-pix_fmt", pixelFormat, "-"])
    }
}
