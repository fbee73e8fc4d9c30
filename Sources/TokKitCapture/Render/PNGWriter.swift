/// Encodes 8-bit grayscale or RGB images as PNG, in pure Swift and without compression: the image data is a
/// zlib stream of *stored* deflate blocks, which every PNG decoder reads. Fast (a copy plus two checksums),
/// larger than the raw pixels by one byte per row and 5 per 64 KiB (0.2 % at 640x480).
///
/// Stateless and thread-safe. ``encode(width:height:color:pixels:bytesPerRow:)`` allocates the output once, at
/// its exact size.
///
/// File layout (RFC 2083, PNG 1.0):
/// - §3.1 signature `89 50 4E 47 0D 0A 1A 0A`;
/// - §3.2 chunks: 4-byte big-endian length, 4-byte type, data, CRC-32 of type and data;
/// - §4.1.1 `IHDR`: width, height, bit depth 8, colour type 0 (gray) or 2 (RGB), compression 0, filter 0,
///   interlace 0;
/// - §4.1.3 `IDAT`: the zlib stream of the scanlines, each preceded by its filter type byte, here
///   §6.2 filter type 0 (None);
/// - §4.1.4 `IEND`, empty.
public enum PNGWriter {
    /// The pixel layout of the input and of the PNG.
    public enum Color: Sendable, Hashable {
        /// One byte per pixel (PNG colour type 0).
        case grayscale
        /// Three bytes per pixel, R, G, B (PNG colour type 2).
        case rgb

        /// Bytes per pixel.
        public var channels: Int { self == .grayscale ? 1 : 3 }
        /// The IHDR colour type (RFC 2083 §4.1.1).
        var colorType: UInt8 { self == .grayscale ? 0 : 2 }
    }

    /// The most bytes of raw scanlines (filter bytes included) an image may have: a chunk length is 31 bits.
    static let maximumRawSize = Int(Int32.max) - 1024

    /// The PNG file of an image whose row `r` starts at `pixels[r * bytesPerRow]`.
    ///
    /// - Throws: ``MediaFileError/invalidImageSize(width:height:)`` for an empty or too large image,
    ///   ``MediaFileError/invalidArgument(_:)`` when `bytesPerRow` is shorter than a row or `pixels` shorter than
    ///   the image. Nothing is read out of bounds.
    public static func encode(
        width: Int, height: Int, color: Color, pixels: UnsafeRawBufferPointer, bytesPerRow: Int? = nil
    ) throws(MediaFileError) -> [UInt8] {
        let rowBytes = width * color.channels
        let stride = bytesPerRow ?? rowBytes
        guard width > 0, height > 0, width <= maximumRawSize / color.channels,
            (rowBytes + 1).multipliedReportingOverflow(by: height).partialValue <= maximumRawSize,
            height <= maximumRawSize
        else { throw .invalidImageSize(width: width, height: height) }
        guard stride >= rowBytes else { throw .invalidArgument("\(stride) bytes per row for \(width) pixels of \(color)") }
        let needed = stride * (height - 1) + rowBytes
        guard pixels.count >= needed, let source = pixels.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw .invalidArgument("\(pixels.count) bytes of pixels, image needs \(needed)")
        }

        let raw = (rowBytes + 1) * height
        let blocks = max(1, (raw + StoredDeflate.maximumBlock - 1) / StoredDeflate.maximumBlock)
        let zlibSize = 2 + blocks * 5 + raw + 4
        let total = signature.count + (12 + 13) + (12 + zlibSize) + 12

        return [UInt8](unsafeUninitializedCapacity: total) { out, count in
            var w = ByteWriter(base: out.baseAddress!)
            w.bytes(signature)

            var ihdr = w.beginChunk("IHDR", length: 13)
            w.u32(UInt32(width))
            w.u32(UInt32(height))
            w.bytes([8, color.colorType, 0, 0, 0])  // bit depth, colour type, compression, filter, interlace
            w.endChunk(&ihdr)

            var idat = w.beginChunk("IDAT", length: zlibSize)
            // RFC 1950 §2.2: CMF 0x78 (CM 8 = deflate, CINFO 7 = 32 KiB window), FLG 0x01 (FLEVEL 0, no
            // dictionary, FCHECK making CMF·256 + FLG a multiple of 31).
            w.bytes([0x78, 0x01])
            var deflate = StoredDeflate(remaining: raw)
            var filter = UInt8(0)  // RFC 2083 §6.2, filter type 0: the scanline as is
            for r in 0..<height {
                deflate.append(&filter, count: 1, to: &w)
                deflate.append(source + r * stride, count: rowBytes, to: &w)
            }
            w.u32(deflate.adler.value)  // RFC 1950 §2.2: ADLER32 of the uncompressed data, big-endian
            w.endChunk(&idat)

            var iend = w.beginChunk("IEND", length: 0)
            w.endChunk(&iend)

            precondition(w.offset == total, "PNG size mismatch")
            count = total
        }
    }

    /// ``encode(width:height:color:pixels:bytesPerRow:)`` for an array of tightly packed rows.
    public static func encode(width: Int, height: Int, color: Color, pixels: [UInt8]) throws(MediaFileError) -> [UInt8] {
        let result: Result<[UInt8], MediaFileError> = pixels.withUnsafeBytes { p in
            Result { () throws(MediaFileError) in try encode(width: width, height: height, color: color, pixels: p) }
        }
        return try result.get()
    }

    /// Encodes and writes the image to `path` (created or truncated).
    ///
    /// - Throws: the errors of ``encode(width:height:color:pixels:bytesPerRow:)``, then the file's
    ///   (``MediaFileError/noSuchFile(path:)``, ``MediaFileError/permissionDenied(path:)``, …).
    public static func write(
        to path: String, width: Int, height: Int, color: Color, pixels: UnsafeRawBufferPointer, bytesPerRow: Int? = nil
    ) throws(MediaFileError) {
        let png = try encode(width: width, height: height, color: color, pixels: pixels, bytesPerRow: bytesPerRow)
        let result: Result<Void, MediaFileError> = png.withUnsafeBytes { bytes in
            Result { () throws(MediaFileError) in try MediaFileIO.write(bytes, to: path) }
        }
        try result.get()
    }

    /// RFC 2083 §3.1.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Appends big-endian fields and chunks to memory already sized for them.
    struct ByteWriter {
        let base: UnsafeMutablePointer<UInt8>
        var offset = 0

        /// Where a chunk's CRC starts (its type field).
        struct Chunk { let crcStart: Int }

        mutating func byte(_ b: UInt8) {
            base[offset] = b
            offset += 1
        }

        mutating func bytes(_ bs: [UInt8]) { for b in bs { byte(b) } }

        mutating func bytes(_ p: UnsafePointer<UInt8>, count: Int) {
            (base + offset).update(from: p, count: count)
            offset += count
        }

        mutating func u32(_ v: UInt32) {
            byte(UInt8(truncatingIfNeeded: v >> 24))
            byte(UInt8(truncatingIfNeeded: v >> 16))
            byte(UInt8(truncatingIfNeeded: v >> 8))
            byte(UInt8(truncatingIfNeeded: v))
        }

        /// RFC 2083 §3.2: length, then type; the CRC covers type and data.
        mutating func beginChunk(_ type: StaticString, length: Int) -> Chunk {
            u32(UInt32(length))
            let chunk = Chunk(crcStart: offset)
            bytes(type.utf8Start, count: 4)
            return chunk
        }

        mutating func endChunk(_ chunk: inout Chunk) {
            var crc = CRC32()
            crc.update(UnsafeRawBufferPointer(start: base + chunk.crcStart, count: offset - chunk.crcStart))
            u32(crc.value)
        }
    }

    /// Raw bytes as a sequence of stored (uncompressed) deflate blocks, RFC 1951 §3.2.3–§3.2.4: each block is a
    /// header byte (BFINAL in bit 0, BTYPE 00 in bits 1–2, the rest padding to the byte boundary), LEN and its
    /// one's complement NLEN (16-bit little-endian), then LEN bytes of data (at most 65 535).
    struct StoredDeflate {
        static let maximumBlock = 65_535
        /// Bytes of the stream not yet appended.
        var remaining: Int
        private var blockLeft = 0
        var adler = Adler32()

        init(remaining: Int) { self.remaining = remaining }

        mutating func append(_ p: UnsafePointer<UInt8>, count: Int, to w: inout ByteWriter) {
            var p = p, n = count
            while n > 0 {  // bounded: each pass consumes at least one byte
                if blockLeft == 0 { startBlock(&w) }
                let k = min(n, blockLeft)
                w.bytes(p, count: k)
                adler.update(UnsafeRawBufferPointer(start: p, count: k))
                p += k
                n -= k
                blockLeft -= k
                remaining -= k
            }
        }

        private mutating func startBlock(_ w: inout ByteWriter) {
            let length = min(remaining, Self.maximumBlock)
            w.byte(length == remaining ? 1 : 0)  // BFINAL on the last block, BTYPE 00
            let len = UInt16(length)
            w.byte(UInt8(truncatingIfNeeded: len))
            w.byte(UInt8(truncatingIfNeeded: len >> 8))
            w.byte(UInt8(truncatingIfNeeded: ~len))
            w.byte(UInt8(truncatingIfNeeded: ~len >> 8))
            blockLeft = length
        }
    }

    /// CRC-32 as PNG uses it (RFC 2083 §3.4, sample code in §15): polynomial 0xEDB88320 (reflected),
    /// register preset to all ones, result complemented. Table-driven, "slicing by 4".
    struct CRC32 {
        private var crc: UInt32 = 0xFFFF_FFFF

        /// The checksum of everything passed to ``update(_:)``.
        var value: UInt32 { ~crc }

        mutating func update(_ bytes: UnsafeRawBufferPointer) {
            let t = Self.table
            var c = crc
            var i = 0
            let n = bytes.count
            t.withUnsafeBufferPointer { t in
                while i + 4 <= n {
                    c ^= bytes.loadUnaligned(fromByteOffset: i, as: UInt32.self).littleEndian
                    c = t[768 + Int(c & 0xFF)] ^ t[512 + Int((c >> 8) & 0xFF)]
                        ^ t[256 + Int((c >> 16) & 0xFF)] ^ t[Int(c >> 24)]
                    i += 4
                }
                while i < n {
                    c = t[Int((c ^ UInt32(bytes[i])) & 0xFF)] ^ (c >> 8)
                    i += 1
                }
            }
            crc = c
        }

        /// Four 256-entry tables: `[0]` is §15's `crc_table`; `[k][n]` is `[k-1][n]` advanced by one zero byte.
        static let table: [UInt32] = {
            var t = [UInt32](repeating: 0, count: 1024)
            for n in 0..<256 {
                var c = UInt32(n)
                for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
                t[n] = c
            }
            for k in 1..<4 {
                for n in 0..<256 { t[k * 256 + n] = t[Int(t[(k - 1) * 256 + n] & 0xFF)] ^ (t[(k - 1) * 256 + n] >> 8) }
            }
            return t
        }()
    }

    /// Adler-32 (RFC 1950 §8.2 and sample code in §9): two sums modulo 65 521, `s1` of the bytes plus one and
    /// `s2` of the successive `s1`; the value is `s2 << 16 | s1`. The modulo is taken every 5 552 bytes, the most
    /// that cannot overflow 32 bits (zlib's NMAX).
    struct Adler32 {
        private var s1: UInt32 = 1
        private var s2: UInt32 = 0

        var value: UInt32 { s2 << 16 | s1 }

        mutating func update(_ bytes: UnsafeRawBufferPointer) {
            var i = 0
            let n = bytes.count
            while i < n {
                let end = min(n, i + 5552)
                var a = s1, b = s2
                while i < end {
                    a &+= UInt32(bytes[i])
                    b &+= a
                    i += 1
                }
                s1 = a % 65521
                s2 = b % 65521
            }
        }
    }
}
