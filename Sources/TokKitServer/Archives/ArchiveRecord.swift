/// How an archive records a session (OpenTok's `outputMode`).
public enum ArchiveOutputMode: String, Codable, Sendable, CaseIterable {
    /// One WebM file per stream, each with its start offset from the archive's start.
    case individual
    /// One WebM file: every stream's video laid out in a grid, audio mixed.
    case composed
}

/// Where an archive is in its life (Docs/Archiving.md, "The archive service").
public enum ArchiveStatus: String, Codable, Sendable, CaseIterable {
    /// Recording.
    case started
    /// Stopped; its files are being finished.
    case stopped
    /// Finished: its files can be downloaded.
    case available
    /// Recording failed (``ArchiveRecord/reason`` says why); files written before the failure are kept.
    case failed
    /// Deleted: its files are gone, the record stays.
    case deleted
}

/// One stream's file in an archive.
public struct ArchiveStreamFile: Codable, Sendable, Hashable {
    /// The stream recorded.
    public var streamID: String
    /// The file's name inside the archive's directory (letters, digits, `-`, `_` and `.webm`; never a path).
    public var file: String
    /// When the stream's media started, in milliseconds from the archive's start (nil: not known, e.g. recovered
    /// after a restart, or the stream delivered nothing).
    public var startOffset: Int64?
    /// The file's size in bytes.
    public var size: Int64

    /// A stream file.
    public init(streamID: String, file: String, startOffset: Int64?, size: Int64) {
        self.streamID = streamID
        self.file = file
        self.startOffset = startOffset
        self.size = size
    }

    enum CodingKeys: String, CodingKey {
        case streamID = "streamId"
        case file, startOffset, size
    }
}

/// An archive as the server keeps it (in ``ArchiveStore``) and answers it on REST (Docs/Protocol.md, 5.7).
public struct ArchiveRecord: Codable, Sendable, Hashable {
    /// The archive's id: a lowercase UUID (``ArchiveID``).
    public var id: String
    /// The session recorded.
    public var sessionID: String
    /// The name given at start (may be empty).
    public var name: String
    /// Individual or composed.
    public var outputMode: ArchiveOutputMode
    /// Whether audio is recorded.
    public var hasAudio: Bool
    /// Whether video is recorded.
    public var hasVideo: Bool
    /// `WIDTHxHEIGHT`, the composed layout's size (recorded for individual archives too, as OpenTok does).
    public var resolution: String
    /// Where the archive is in its life.
    public var status: ArchiveStatus
    /// When it started, in milliseconds since the Unix epoch.
    public var createdAt: Int64
    /// How long it recorded, in seconds (0 while started).
    public var duration: Double
    /// Bytes of its files (0 until available, and once deleted).
    public var size: Int64
    /// Why it failed or how it was recovered (nil otherwise).
    public var reason: String?
    /// Its files, one per stream in individual mode, in the order the streams were first seen.
    public var streams: [ArchiveStreamFile]

    /// An archive record.
    public init(
        id: String, sessionID: String, name: String, outputMode: ArchiveOutputMode, hasAudio: Bool, hasVideo: Bool,
        resolution: String, status: ArchiveStatus, createdAt: Int64, duration: Double = 0, size: Int64 = 0,
        reason: String? = nil, streams: [ArchiveStreamFile] = []
    ) {
        self.id = id
        self.sessionID = sessionID
        self.name = name
        self.outputMode = outputMode
        self.hasAudio = hasAudio
        self.hasVideo = hasVideo
        self.resolution = resolution
        self.status = status
        self.createdAt = createdAt
        self.duration = duration
        self.size = size
        self.reason = reason
        self.streams = streams
    }

    enum CodingKeys: String, CodingKey {
        case id
        case sessionID = "sessionId"
        case name, outputMode, hasAudio, hasVideo, resolution, status, createdAt, duration, size, reason, streams
    }
}
