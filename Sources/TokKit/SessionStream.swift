import struct FoundationEssentials.Date

/// A published media stream in the session, as the SDK's `OTStream`.
///
/// A value snapshot taken when the event that carries it happened: its properties do not change under you.
/// For the current state read ``Session/streams`` (or ``Publisher/stream`` / ``Subscriber/stream``) again; every
/// change arrives as ``SessionEvent/streamPropertyChanged(_:_:)``. Identify streams by ``streamID``: two
/// snapshots of one stream differ when a property changed in between.
public struct SessionStream: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// Unique within the session.
    public let streamID: StreamID
    /// The connection that publishes it.
    public let connection: Connection
    /// The publisher's name (may be empty).
    public let name: String
    /// Whether the publisher is sending audio (``Publisher/publishAudio``).
    public internal(set) var hasAudio: Bool
    /// Whether the publisher is sending video (``Publisher/publishVideo``).
    public internal(set) var hasVideo: Bool
    /// The size of the published video, if known.
    public internal(set) var videoDimensions: VideoDimensions?
    /// What the video shows.
    public internal(set) var videoType: StreamVideoType
    /// When the server created the stream.
    public let creationTime: Date

    /// ``streamID``, for `Identifiable`.
    public var id: StreamID { streamID }

    /// A stream as the server describes it; the session builds these, tests may too.
    public init(
        streamID: StreamID, connection: Connection, name: String, hasAudio: Bool, hasVideo: Bool,
        videoDimensions: VideoDimensions?, videoType: StreamVideoType, creationTime: Date
    ) {
        self.streamID = streamID
        self.connection = connection
        self.name = name
        self.hasAudio = hasAudio
        self.hasVideo = hasVideo
        self.videoDimensions = videoDimensions
        self.videoType = videoType
        self.creationTime = creationTime
    }

    /// The stream's id, publisher, name, audio and video flags, size and type on one line.
    public var description: String {
        "SessionStream(\(streamID), from \(connection.connectionID), name: \(name), audio: \(hasAudio), "
            + "video: \(hasVideo), \(videoDimensions?.description ?? "?"), \(videoType.rawValue))"
    }
}
