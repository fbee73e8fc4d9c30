/// The stream header of a YUV4MPEG2 (`.y4m`) file: the first line, `YUV4MPEG2 W… H… F… I… A… C…`.
///
/// TokKit reads and writes 8-bit 4:2:0 only. `C420jpeg`, `C420paldv`, `C420mpeg2` and `C420` (and no `C` tag
/// at all) differ only in where chroma samples sit, and all mean I420 planes here; any other colour space is
/// rejected. A missing or `0:0` frame rate means 25 fps, as ffmpeg assumes. `X` tags and unknown tags are
/// ignored. Each frame follows as a `FRAME` line and the Y, U and V planes, tightly packed.
///
/// Plain data, `Sendable`; parsing never reads past the bytes it is given.
public struct Y4MStreamHeader: Hashable, Sendable, CustomStringConvertible {
    /// A positive ratio as Y4M writes it, `numerator:denominator`.
    public struct Ratio: Hashable, Sendable, CustomStringConvertible {
        /// The number before the colon.
        public var numerator: Int
        /// The number after the colon.
        public var denominator: Int

        /// The ratio `numerator:denominator`; nothing is checked (`0:0` is how Y4M says "unknown").
        public init(_ numerator: Int, _ denominator: Int) {
            self.numerator = numerator
            self.denominator = denominator
        }

        /// The ratio as a number (0 when the denominator is 0).
        public var value: Double { denominator == 0 ? 0 : Double(numerator) / Double(denominator) }

        /// The frame rate Y4M files usually carry for `fps`: `n:1` for whole rates, `n:1001` for the NTSC
        /// family (29.97, 59.94, 23.976), otherwise `n:1000`.
        public static func approximating(_ fps: Double) -> Ratio {
            guard fps.isFinite, fps > 0 else { return Ratio(25, 1) }
            if abs(fps - fps.rounded()) < 1e-6 { return Ratio(Int(fps.rounded()), 1) }
            let ntsc = (fps * 1001).rounded()
            if abs(ntsc / 1001 - fps) < 1e-6 { return Ratio(Int(ntsc), 1001) }
            return Ratio(Int((fps * 1000).rounded()), 1000)
        }

        /// `numerator:denominator`, as written in the header.
        public var description: String { "\(numerator):\(denominator)" }
    }

    /// Where the 4:2:0 chroma samples sit (the `C` tag). The planes are laid out the same for all of them.
    public enum ChromaSiting: String, Hashable, Sendable, CaseIterable {
        /// `C420jpeg`: centred (JPEG, MPEG-1), what ffmpeg and TokKit write.
        case jpeg = "420jpeg"
        /// `C420paldv`: PAL DV siting.
        case paldv = "420paldv"
        /// `C420mpeg2`: left-aligned (MPEG-2, H.264).
        case mpeg2 = "420mpeg2"
        /// `C420`, or no `C` tag.
        case unspecified = "420"
    }

    /// The longest stream header accepted, newline included.
    public static let maximumLength = 4096
    /// The signature every Y4M file starts with (with one space after it).
    public static let signature: [UInt8] = Array("YUV4MPEG2 ".utf8)
    /// Largest width and height accepted (as ``VideoFormat/validate()``).
    public static let maximumDimension = 16384

    /// The `W` tag: frame width in pixels.
    public var width: Int
    /// The `H` tag: frame height in pixels.
    public var height: Int
    /// The `F` tag: frames per second as a ratio, e.g. `30000:1001`.
    public var frameRate: Ratio
    /// The `I` tag: `p` progressive, `t` top field first, `b` bottom field first, `m` mixed, `?` unknown.
    public var interlacing: Character
    /// The `A` tag (`0:0` when unknown).
    public var pixelAspect: Ratio
    /// The `C` tag.
    public var chromaSiting: ChromaSiting

    /// A header for `width`×`height` I420 frames at `frameRate`, progressive, square pixels, `C420jpeg` by default.
    public init(
        width: Int, height: Int, frameRate: Ratio, interlacing: Character = "p", pixelAspect: Ratio = Ratio(1, 1),
        chromaSiting: ChromaSiting = .jpeg
    ) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.interlacing = interlacing
        self.pixelAspect = pixelAspect
        self.chromaSiting = chromaSiting
    }

    /// Parses the header line, `line` holding the bytes before its terminating newline.
    ///
    /// - Throws: ``MediaFileError/notY4M`` without the signature, ``MediaFileError/malformedY4MHeader(_:)`` for
    ///   a missing or invalid `W`, `H`, `F`, `A` or `I` tag, ``MediaFileError/unsupportedY4MColorspace(_:)``
    ///   for a colour space other than 8-bit 4:2:0.
    public init(parsing line: some Collection<UInt8>) throws(MediaFileError) {
        guard line.starts(with: Self.signature) else { throw .notY4M }
        guard line.count < Self.maximumLength else {
            throw .malformedY4MHeader("longer than \(Self.maximumLength) bytes")
        }
        var width: Int?, height: Int?
        var rate = Ratio(0, 0), aspect = Ratio(0, 0)
        var interlacing: Character = "?"
        var siting = ChromaSiting.unspecified
        for token in line.dropFirst(Self.signature.count).split(separator: UInt8(ascii: " ")) {
            let tag = token.first!
            let value = token.dropFirst()
            switch tag {
            case UInt8(ascii: "W"): width = try Self.dimension(value, tag: "W")
            case UInt8(ascii: "H"): height = try Self.dimension(value, tag: "H")
            case UInt8(ascii: "F"):
                rate = try Self.ratio(value, tag: "F")
                guard rate.denominator > 0 || rate.numerator == 0 else {
                    throw .malformedY4MHeader("frame rate F\(rate) has a zero denominator")
                }
            case UInt8(ascii: "A"): aspect = try Self.ratio(value, tag: "A")
            case UInt8(ascii: "I"):
                guard value.count == 1, let c = value.first, "ptbm?".utf8.contains(c) else {
                    throw .malformedY4MHeader("interlacing I\(Self.text(value)) is not one of p, t, b, m, ?")
                }
                interlacing = Character(Unicode.Scalar(c))
            case UInt8(ascii: "C"):
                guard let s = ChromaSiting(rawValue: Self.text(value)) else {
                    throw .unsupportedY4MColorspace(Self.text(value))
                }
                siting = s
            default:
                continue  // X (extensions) and tags this reader does not know are ignored
            }
        }
        guard let width else { throw .malformedY4MHeader("missing width (W tag)") }
        guard let height else { throw .malformedY4MHeader("missing height (H tag)") }
        if rate.numerator == 0 { rate = Ratio(25, 1) }
        self.init(
            width: width, height: height, frameRate: rate, interlacing: interlacing, pixelAspect: aspect,
            chromaSiting: siting)
    }

    /// The frame rate as a number.
    public var framesPerSecond: Double { frameRate.value }

    /// Bytes of one frame's planes: Y, then U and V at half width and height rounded up.
    public var frameSize: Int { width * height + 2 * chromaPlaneSize }
    /// Bytes of one chroma plane.
    public var chromaPlaneSize: Int { ((width + 1) / 2) * ((height + 1) / 2) }

    /// The tightly packed I420 format of the frames.
    public var videoFormat: VideoFormat { .i420(width: width, height: height, fps: framesPerSecond) }

    /// The header line, newline included, as written to a file.
    public var description: String {
        "YUV4MPEG2 W\(width) H\(height) F\(frameRate) I\(interlacing) A\(pixelAspect) C\(chromaSiting.rawValue)\n"
    }

    private static func text(_ bytes: some Collection<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    /// A decimal number of at most 9 digits (no sign), so it cannot overflow.
    private static func number(_ bytes: some Collection<UInt8>) -> Int? {
        guard (1...9).contains(bytes.count) else { return nil }
        var n = 0
        for b in bytes {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) else { return nil }
            n = n * 10 + Int(b - UInt8(ascii: "0"))
        }
        return n
    }

    private static func dimension(_ value: some Collection<UInt8>, tag: String) throws(MediaFileError) -> Int {
        guard let n = number(value), (1...maximumDimension).contains(n) else {
            throw .malformedY4MHeader("\(tag)\(text(value)) is not a size in 1...\(maximumDimension)")
        }
        return n
    }

    private static func ratio(_ value: some Collection<UInt8>, tag: String) throws(MediaFileError) -> Ratio {
        let parts = value.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard parts.count == 2, let n = number(parts[0]), let d = number(parts[1]) else {
            throw .malformedY4MHeader("\(tag)\(text(value)) is not a ratio n:d")
        }
        return Ratio(n, d)
    }
}
