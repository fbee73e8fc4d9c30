/// A published stream as every participant sees it (OpenTok's `OTStream`).
///
/// `connectionID` is the owning (publishing) connection; `creationTime` is in milliseconds since the Unix epoch;
/// `videoDimensions` is absent for audio-only streams that never sent a size; `frameRate` (frames per second, as the
/// publisher announced it) is absent when the publisher announced none (``ProtocolLimits/assumedFrameRate`` is
/// assumed then).
public struct StreamInfo: Codable, Hashable, Sendable {
    public var id: String
    public var connectionID: String
    public var name: String
    public var hasAudio: Bool
    public var hasVideo: Bool
    public var videoType: VideoType
    public var videoDimensions: VideoDimensions?
    public var frameRate: Double?
    public var creationTime: Int64

    public init(
        id: String, connectionID: String, name: String, hasAudio: Bool, hasVideo: Bool,
        videoType: VideoType, videoDimensions: VideoDimensions?, frameRate: Double? = nil, creationTime: Int64
    ) {
        self.id = id
        self.connectionID = connectionID
        self.name = name
        self.hasAudio = hasAudio
        self.hasVideo = hasVideo
        self.videoType = videoType
        self.videoDimensions = videoDimensions
        self.frameRate = frameRate
        self.creationTime = creationTime
    }

    enum CodingKeys: String, CodingKey {
        case id
        case connectionID = "connectionId"
        case name
        case hasAudio
        case hasVideo
        case videoType
        case videoDimensions
        case frameRate
        case creationTime
    }
}
