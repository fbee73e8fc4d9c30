/// Whether a session is recorded only on request (`manual`) or from its first stream (`always`).
public enum ArchiveMode: String, Codable, Sendable, CaseIterable {
    case manual
    case always
}
