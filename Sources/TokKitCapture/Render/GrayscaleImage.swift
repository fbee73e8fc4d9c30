/// An 8-bit grayscale picture: the luma of a video frame, tightly packed, row after row.
///
/// A plain `Sendable` value (its own copy of the pixels), safe to keep and pass between threads.
public struct GrayscaleImage: Hashable, Sendable {
    /// Width in pixels (positive).
    public let width: Int
    /// Height in pixels (positive).
    public let height: Int
    /// `width × height` bytes, row `r` at `pixels[r * width]`.
    public let pixels: [UInt8]

    /// An image of the given pixels; `nil` if `pixels.count` is not `width × height` or the size is not positive.
    public init?(width: Int, height: Int, pixels: [UInt8]) {
        guard width > 0, height > 0, width.multipliedReportingOverflow(by: height) == (pixels.count, false) else {
            return nil
        }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The luma at (`x`, `y`), or `nil` outside the image.
    public subscript(x: Int, y: Int) -> UInt8? {
        guard (0..<width).contains(x), (0..<height).contains(y) else { return nil }
        return pixels[y * width + x]
    }

    /// The picture as the SDK sample's black-and-white renderer shows it: R = G = B = luma, 3 bytes per pixel.
    public func rgbPixels() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: pixels.count * 3) { out, count in
            for (i, y) in pixels.enumerated() {
                out[3 * i] = y
                out[3 * i + 1] = y
                out[3 * i + 2] = y
            }
            count = pixels.count * 3
        }
    }

    /// The picture as a file in `format` (``ImageFileFormat/pngRGB``: R = G = B = luma).
    public func encoded(as format: ImageFileFormat) throws(MediaFileError) -> [UInt8] {
        switch format {
        case .pgm:
            let r: Result<[UInt8], MediaFileError> = pixels.withUnsafeBytes { p in
                Result { () throws(MediaFileError) in try PGMWriter.encode(width: width, height: height, pixels: p) }
            }
            return try r.get()
        case .png: return try PNGWriter.encode(width: width, height: height, color: .grayscale, pixels: pixels)
        case .pngRGB: return try PNGWriter.encode(width: width, height: height, color: .rgb, pixels: rgbPixels())
        }
    }

    /// Writes the picture to `path` (created or truncated) in `format`.
    ///
    /// - Throws: ``MediaFileError/noSuchFile(path:)``, ``MediaFileError/permissionDenied(path:)``,
    ///   ``MediaFileError/isDirectory(path:)`` or another system error.
    public func write(to path: String, format: ImageFileFormat) throws(MediaFileError) {
        let bytes = try encoded(as: format)
        let r: Result<Void, MediaFileError> = bytes.withUnsafeBytes { b in
            Result { () throws(MediaFileError) in try MediaFileIO.write(b, to: path) }
        }
        try r.get()
    }
}
