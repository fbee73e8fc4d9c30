import TokKit
import TokKitCodecs
import TokKitMedia
import TokKitRecording

/// What a composed archive records and how: OpenTok's `resolution`, `hasAudio` and `hasVideo`, plus the frame rate
/// and bitrates of the one VP8 and the one Opus track.
public struct ComposedArchiveSettings: Hashable, Sendable {
    /// Canvas width in pixels: even, 160...1920.
    public var width: Int
    /// Canvas height in pixels: even, 120...1080.
    public var height: Int
    /// Canvas frames per second, 1...60.
    public var framesPerSecond: Int
    /// VP8 target bitrate in bits per second; `nil` picks one from the canvas size (about 1 Mbps at 640x480).
    public var videoBitrate: Int?
    /// Opus bitrate of the mixed audio in bits per second, 6000...510000.
    public var audioBitrate: Int
    /// Whether the file has the mixed audio track.
    public var hasAudio: Bool
    /// Whether the file has the composed video track.
    public var hasVideo: Bool

    /// Settings for a `width` x `height` canvas (640x480 by default, OpenTok's default; 1280x720 is its other
    /// common choice) at `framesPerSecond`.
    public init(width: Int = 640, height: Int = 480, framesPerSecond: Int = 15, videoBitrate: Int? = nil,
                audioBitrate: Int = 64_000, hasAudio: Bool = true, hasVideo: Bool = true) {
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        self.videoBitrate = videoBitrate
        self.audioBitrate = audioBitrate
        self.hasAudio = hasAudio
        self.hasVideo = hasVideo
    }

    /// Settings from OpenTok's archive options: `resolution` as its REST API writes it (`"640x480"`,
    /// `"1280x720"`; any `WIDTHxHEIGHT` in range), `hasAudio`, `hasVideo`.
    ///
    /// - Throws: ``ComposedArchiveError/invalidSettings(_:)`` for a resolution that is not `WIDTHxHEIGHT` or is out of
    ///   range, or neither audio nor video.
    public init(resolution: String, hasAudio: Bool = true, hasVideo: Bool = true, framesPerSecond: Int = 15)
        throws(ComposedArchiveError) {
        let parts = resolution.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ (1...4).contains($0.count) && $0.allSatisfy(\.isASCII) }),
              let width = Int(parts[0]), let height = Int(parts[1])
        else { throw .invalidSettings("resolution \"\(resolution.prefix(32))\" (WIDTHxHEIGHT, e.g. 640x480)") }
        self.init(width: width, height: height, framesPerSecond: framesPerSecond, hasAudio: hasAudio, hasVideo: hasVideo)
        try validate()
    }

    /// The VP8 bitrate used: ``videoBitrate``, or about 3.3 bits per pixel per second (1 Mbps at 640x480).
    public var effectiveVideoBitrate: Int { videoBitrate ?? max(300_000, width * height * 10 / 3) }

    /// Throws ``ComposedArchiveError/invalidSettings(_:)`` naming the first value out of range.
    public func validate() throws(ComposedArchiveError) {
        guard hasAudio || hasVideo else { throw .invalidSettings("an archive needs audio, video or both") }
        // Landscape or portrait (OpenTok's 720x1280 and 1080x1920 too): the long side up to 1920, the short up to 1080.
        let (long, short) = (max(width, height), min(width, height))
        guard (160...1920).contains(long), (120...1080).contains(short), width % 2 == 0, height % 2 == 0 else {
            throw .invalidSettings("resolution \(width)x\(height) (even; long side 160...1920, short side 120...1080)")
        }
        guard (1...60).contains(framesPerSecond) else { throw .invalidSettings("framesPerSecond \(framesPerSecond) (1...60)") }
        guard (6_000...510_000).contains(audioBitrate) else { throw .invalidSettings("audioBitrate \(audioBitrate)") }
        if let videoBitrate, !(50_000...20_000_000).contains(videoBitrate) {
            throw .invalidSettings("videoBitrate \(videoBitrate) (50000...20000000)")
        }
    }
}

/// Why a composed archive could not start.
public enum ComposedArchiveError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A setting is out of range (nothing was started).
    case invalidSettings(String)
    /// The session could not be joined.
    case session(SessionError)
    /// The file could not be created or written.
    case recording(RecordingError)
    /// An encoder could not be made, or failed.
    case codec(CodecError)
    /// The canvas could not be drawn.
    case composition(VideoFrameError)

    public var description: String {
        switch self {
        case .invalidSettings(let what): "invalid composed archive settings: \(what)"
        case .session(let error): "composed archive: \(error)"
        case .recording(let error): "composed archive: \(error)"
        case .codec(let error): "composed archive: \(error)"
        case .composition(let error): "composed archive canvas: \(error)"
        }
    }
}
