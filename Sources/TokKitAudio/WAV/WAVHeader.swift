/// What TokKit needs from a RIFF/WAVE header: the sample format and where the 16-bit PCM samples are.
///
/// Parsing walks the chunk list (any chunks may precede `data`; odd-sized chunks are padded) and accepts
/// `WAVE_FORMAT_PCM` and `WAVE_FORMAT_EXTENSIBLE` with the PCM sub-format, 16 bits per sample, any channel count
/// and rate (whether a device can use them is the device's business). A `data` chunk that claims more bytes than
/// the file holds (an unfinished recording) is cut to what is there. Anything else is a typed ``WAVError``;
/// no input makes it read out of bounds or trap. A plain value: parse and use it on any thread.
public struct WAVHeader: Sendable, Hashable {
    /// Rate and channels of the samples.
    public var format: AudioFormat
    /// Byte offset of the first sample in the file.
    public var dataOffset: Int
    /// Bytes of samples (whole frames).
    public var dataByteCount: Int

    /// Bytes in one frame (all channels).
    public var bytesPerFrame: Int { format.numberOfChannels * MemoryLayout<Int16>.size }
    /// Frames of audio.
    public var frameCount: Int { dataByteCount / bytesPerFrame }

    /// Size of the canonical header ``canonicalBytes(format:dataByteCount:)`` produces.
    public static let canonicalSize = 44

    /// The canonical 44-byte header (`RIFF`, a 16-byte `fmt ` chunk, the `data` chunk header) for `dataByteCount`
    /// bytes of 16-bit PCM in `format`. `UInt32.max` means "unknown length" (both sizes saturate), which readers
    /// take as "up to the end of the file".
    public static func canonicalBytes(format: AudioFormat, dataByteCount: UInt32) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(canonicalSize)
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        let channels = UInt16(truncatingIfNeeded: format.numberOfChannels)
        let rate = UInt32(truncatingIfNeeded: format.sampleRate)
        out += Array("RIFF".utf8); u32(dataByteCount > UInt32.max - 36 ? UInt32.max : dataByteCount + 36); out += Array("WAVE".utf8)
        out += Array("fmt ".utf8); u32(16)
        u16(1); u16(channels); u32(rate); u32(rate &* UInt32(channels) &* 2); u16(channels &* 2); u16(16)
        out += Array("data".utf8); u32(dataByteCount)
        return out
    }

    /// Parses a header from the bytes of a whole (small) file in memory.
    public init(parsing bytes: [UInt8]) throws(WAVError) {
        // withUnsafeBytes only rethrows untyped errors: carry the typed one out in a Result.
        self = try bytes.withUnsafeBytes { file in
            Result { () throws(WAVError) in
                try WAVHeader.parse(fileSize: file.count) { offset, into in
                    let n = max(0, min(into.count, file.count - offset))
                    if n > 0 { into.baseAddress!.copyMemory(from: file.baseAddress! + offset, byteCount: n) }
                    return n
                }
            }
        }.get()
    }

    init(format: AudioFormat, dataOffset: Int, dataByteCount: Int) {
        self.format = format
        self.dataOffset = dataOffset
        self.dataByteCount = dataByteCount
    }

    /// Parses the header of a file of `fileSize` bytes, reading through `read(offset, buffer)`, which returns
    /// how many bytes it put in `buffer` (fewer only at the end of the file).
    static func parse(
        fileSize: Int, read: (Int, UnsafeMutableRawBufferPointer) throws(WAVError) -> Int
    ) throws(WAVError) -> WAVHeader {
        // Room for the largest chunk body parsed here (WAVE_FORMAT_EXTENSIBLE's 40-byte `fmt `).
        var scratch: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        return try withUnsafeMutableBytes(of: &scratch) { (buf) throws(WAVError) -> WAVHeader in
            func fill(_ offset: Int, _ count: Int) throws(WAVError) -> UnsafeRawBufferPointer? {
                let part = UnsafeMutableRawBufferPointer(rebasing: buf[0..<count])
                return try read(offset, part) == count ? UnsafeRawBufferPointer(part) : nil
            }
            guard let riff = try fill(0, 12), riff.tag(at: 0) == "RIFF", riff.tag(at: 8) == "WAVE" else {
                throw .notWAV
            }
            var format: AudioFormat?
            var data: (offset: Int, count: Int)?
            var offset = 12
            // Each chunk moves `offset` forward by at least 8 bytes, so this ends within fileSize / 8 rounds.
            while offset <= fileSize - 8, format == nil || data == nil {
                guard let head = try fill(offset, 8) else { break }
                let id = head.tag(at: 0)
                let size = Int(head.u32(at: 4))
                let body = offset + 8
                let available = fileSize - body
                switch id {
                case "fmt ":
                    guard size >= 16, size <= available, let fmt = try fill(body, min(size, 40)) else {
                        throw .malformedChunk("fmt ")
                    }
                    format = try parseFormat(fmt)
                case "data":
                    data = (body, min(size, available))
                default:
                    break
                }
                offset = body + size + (size & 1)
            }
            guard let format else { throw .missingChunk("fmt ") }
            guard let data else { throw .missingChunk("data") }
            let frameBytes = format.numberOfChannels * 2
            return WAVHeader(format: format, dataOffset: data.offset, dataByteCount: data.count / frameBytes * frameBytes)
        }
    }

    private static func parseFormat(_ fmt: UnsafeRawBufferPointer) throws(WAVError) -> AudioFormat {
        var tag = fmt.u16(at: 0)
        let channels = Int(fmt.u16(at: 2))
        let rate = Int(fmt.u32(at: 4))
        let blockAlign = Int(fmt.u16(at: 12))
        let bits = Int(fmt.u16(at: 14))
        if tag == 0xFFFE {   // WAVE_FORMAT_EXTENSIBLE: the real tag opens the sub-format GUID
            guard fmt.count >= 40 else { throw .malformedChunk("fmt ") }
            tag = fmt.u16(at: 24)
        }
        guard tag == 1 else { throw .unsupportedEncoding(formatTag: tag) }
        guard bits == 16 else { throw .unsupportedBitsPerSample(bits) }
        guard channels > 0 else { throw .invalidFormat("0 channels") }
        guard rate > 0 else { throw .invalidFormat("sample rate 0") }
        guard blockAlign == channels * 2 else {
            throw .invalidFormat("block alignment \(blockAlign) for \(channels) channels of 16 bits")
        }
        return AudioFormat(sampleRate: rate, numberOfChannels: channels)
    }
}

extension UnsafeRawBufferPointer {
    fileprivate func u16(at offset: Int) -> UInt16 {
        UInt16(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }
    fileprivate func u32(at offset: Int) -> UInt32 {
        UInt32(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
    /// The four ASCII bytes at `offset` (non-ASCII bytes never match a tag).
    fileprivate func tag(at offset: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: self[offset..<offset + 4]), as: UTF8.self)
    }
}
