/// Encodes 8-bit grayscale images as binary PGM (Netpbm `P5`): the header `P5\n<width> <height>\n255\n`, then
/// the rows, one byte per pixel, top to bottom.
///
/// Stateless and thread-safe. The output is allocated once, at its exact size.
public enum PGMWriter {
    /// The PGM file of an image whose row `r` starts at `pixels[r * bytesPerRow]`.
    ///
    /// - Throws: ``MediaFileError/invalidImageSize(width:height:)`` for an empty or too large image,
    ///   ``MediaFileError/invalidArgument(_:)`` when `bytesPerRow` is shorter than a row or `pixels` shorter than
    ///   the image. Nothing is read out of bounds.
    public static func encode(
        width: Int, height: Int, pixels: UnsafeRawBufferPointer, bytesPerRow: Int? = nil
    ) throws(MediaFileError) -> [UInt8] {
        let stride = bytesPerRow ?? width
        guard width > 0, height > 0, width.multipliedReportingOverflow(by: height).partialValue <= Int(Int32.max),
            width <= Int(Int32.max), height <= Int(Int32.max)
        else { throw .invalidImageSize(width: width, height: height) }
        guard stride >= width else { throw .invalidArgument("\(stride) bytes per row for \(width) gray pixels") }
        let needed = stride * (height - 1) + width
        guard pixels.count >= needed, let source = pixels.baseAddress else {
            throw .invalidArgument("\(pixels.count) bytes of pixels, image needs \(needed)")
        }
        let header = Array("P5\n\(width) \(height)\n255\n".utf8)
        let total = header.count + width * height
        return [UInt8](unsafeUninitializedCapacity: total) { out, count in
            let base = out.baseAddress!
            header.withUnsafeBufferPointer { base.update(from: $0.baseAddress!, count: header.count) }
            let rows = UnsafeMutableRawPointer(base + header.count)
            for r in 0..<height {
                (rows + r * width).copyMemory(from: source + r * stride, byteCount: width)
            }
            count = total
        }
    }

    /// Encodes and writes the image to `path` (created or truncated).
    ///
    /// - Throws: the errors of ``encode(width:height:pixels:bytesPerRow:)``, then the file's
    ///   (``MediaFileError/noSuchFile(path:)``, ``MediaFileError/permissionDenied(path:)``, …).
    public static func write(
        to path: String, width: Int, height: Int, pixels: UnsafeRawBufferPointer, bytesPerRow: Int? = nil
    ) throws(MediaFileError) {
        let pgm = try encode(width: width, height: height, pixels: pixels, bytesPerRow: bytesPerRow)
        let result: Result<Void, MediaFileError> = pgm.withUnsafeBytes { bytes in
            Result { () throws(MediaFileError) in try MediaFileIO.write(bytes, to: path) }
        }
        try result.get()
    }
}
