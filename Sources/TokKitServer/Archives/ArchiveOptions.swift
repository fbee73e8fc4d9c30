/// What a start asks for (`POST /v2/project/{apiKey}/archive`'s body; Docs/Protocol.md, 5.7). Every field but
/// `sessionId` is optional.
public struct ArchiveOptions: Codable, Sendable, Hashable {
    /// Resolutions a start may ask for (OpenTok's set); the first is the default.
    public static let resolutions = ["640x480", "480x640", "1280x720", "720x1280", "1920x1080", "1080x1920"]
    /// Longest archive name, in bytes of UTF-8.
    public static let maxNameBytes = 256

    /// The session to record.
    public var sessionID: String
    /// A name for the archive (default empty).
    public var name: String?
    /// `individual` (default) or `composed`.
    public var outputMode: ArchiveOutputMode?
    /// Record audio (default true).
    public var hasAudio: Bool?
    /// Record video (default true).
    public var hasVideo: Bool?
    /// One of ``resolutions`` (default `640x480`).
    public var resolution: String?

    /// Start options.
    public init(
        sessionID: String, name: String? = nil, outputMode: ArchiveOutputMode? = nil, hasAudio: Bool? = nil,
        hasVideo: Bool? = nil, resolution: String? = nil
    ) {
        self.sessionID = sessionID
        self.name = name
        self.outputMode = outputMode
        self.hasAudio = hasAudio
        self.hasVideo = hasVideo
        self.resolution = resolution
    }

    enum CodingKeys: String, CodingKey {
        case sessionID = "sessionId"
        case name, outputMode, hasAudio, hasVideo, resolution
    }

    /// The options with their defaults filled in, checked: a resolution outside ``resolutions``, a name over
    /// ``maxNameBytes``, or neither audio nor video is ``ArchiveError/invalid(_:)``.
    func validated() throws(ArchiveError) -> (name: String, outputMode: ArchiveOutputMode, hasAudio: Bool,
                                              hasVideo: Bool, resolution: String)
    {
        let name = name ?? ""
        guard name.utf8.count <= Self.maxNameBytes else {
            throw .invalid("name is longer than \(Self.maxNameBytes) bytes")
        }
        let resolution = resolution ?? Self.resolutions[0]
        guard Self.resolutions.contains(where: { $0.utf8.elementsEqual(resolution.utf8) }) else {
            throw .invalid("resolution must be one of \(Self.resolutions.joined(separator: ", "))")
        }
        let hasAudio = hasAudio ?? true
        let hasVideo = hasVideo ?? true
        guard hasAudio || hasVideo else { throw .invalid("an archive needs audio, video or both") }
        return (name, outputMode ?? .individual, hasAudio, hasVideo, resolution)
    }
}
