/// The kind of a media section: TokKit negotiates at most one audio (Opus) and one video (VP8) section, BUNDLEd.
///
/// Value type, usable from any thread.
public enum MediaKind: String, Sendable, Hashable, CaseIterable {
    case audio
    case video

    /// The RTP clock rate of the kind's codec (Opus 48 kHz, VP8 90 kHz).
    public var clockRate: Int { self == .audio ? 48_000 : 90_000 }

    /// Index into per-kind storage.
    var index: Int { self == .audio ? 0 : 1 }
}
