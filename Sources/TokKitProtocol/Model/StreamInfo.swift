/// A published stream as every participant sees it (OpenTok's `OTStream`).
///
/// `connectionID` is the owning (publishing) connection; `creationTime` is in milliseconds since the Unix epoch;
/// `videoDimensions` is absent for audio-only streams that never sent a size.
public struct StreamInfo: Codable, Hashable, Sendable {
    public var id: String
    public var connectionID: String
    public var name: String
    public var hasAudio: Bool
    public var hasVideo: Bool
    public var videoType: VideoType
    public var videoDimensions: VideoDimensions?
    public var creationTime: Int64

    public init(
        id: String, connectionID: String, name: String, hasAudio: Bool, hasVideo: Bool,
        videoType: VideoType, videoDimensions: VideoDimensions?, creationTime: Int64
    ) {
        self.id = id
        self.connectionID = connectionID
        self.name = name
        self.hasAudio = hasAudio
        self.hasVideo = hasVideo
        self.videoType = videoType
        self.videoDimensions = videoDimensions
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
        case creationTime
    }
}
