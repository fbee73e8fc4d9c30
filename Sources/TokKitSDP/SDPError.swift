/// Why TokKitSDP rejected a session description, an attribute value or a negotiation.
///
/// Parsing errors carry the 1-based line number. Hostile or oversized input ends in one of these cases, never in a
/// trap. Plain data, safe to pass between threads.
public enum SDPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The description is larger than ``SDPLimits/maximumSize``.
    case tooLarge(bytes: Int, limit: Int)
    /// The description has more than ``SDPLimits/maximumLines`` lines.
    case tooManyLines(limit: Int)
    /// A line is longer than ``SDPLimits/maximumLineLength``.
    case lineTooLong(line: Int, length: Int, limit: Int)
    /// More m= sections than ``SDPLimits/maximumMediaSections``.
    case tooManyMediaSections(limit: Int)
    /// A line is not `<letter>=<value>` with printable UTF-8 (RFC 8866 §5).
    case malformedLine(line: Int)
    /// A line appears where the grammar of RFC 8866 §9 does not allow it (e.g. `m=` before `v=`, a second `v=`).
    case unexpectedLine(line: Int, type: Character)
    /// A mandatory line is missing (`v=`, `o=`, `s=`, `t=`).
    case missingLine(type: Character)
    /// The value of a line or attribute does not follow its grammar.
    case invalidValue(line: Int, field: String)
    /// An ICE candidate does not follow RFC 8839 §5.1.
    case invalidCandidate(String)
    /// The remote description lacks ICE credentials (RFC 8839 §5.4) for the transport TokKit would use.
    case missingICECredentials
    /// The remote description lacks a DTLS fingerprint (RFC 8122 §5) for the transport TokKit would use.
    case missingFingerprint
    /// The remote setup role cannot be answered (RFC 4145 §4, RFC 8842 §5.3: holdconn, or an invalid role).
    case unsupportedSetupRole(String)
    /// An offer/answer option is invalid (e.g. an empty ICE ufrag, a CNAME with spaces).
    case invalidOption(String)

    public var description: String {
        switch self {
        case let .tooLarge(b, l): "SDP of \(b) bytes exceeds the limit of \(l)"
        case let .tooManyLines(l): "SDP has more than \(l) lines"
        case let .lineTooLong(n, len, l): "line \(n): \(len) bytes exceeds the limit of \(l)"
        case let .tooManyMediaSections(l): "SDP has more than \(l) m= sections"
        case let .malformedLine(n): "line \(n): not of the form <type>=<value>"
        case let .unexpectedLine(n, t): "line \(n): '\(t)=' is not allowed here"
        case let .missingLine(t): "missing mandatory '\(t)=' line"
        case let .invalidValue(n, f): "line \(n): invalid \(f)"
        case let .invalidCandidate(r): "invalid ICE candidate: \(r)"
        case .missingICECredentials: "remote description has no ice-ufrag/ice-pwd"
        case .missingFingerprint: "remote description has no DTLS fingerprint"
        case let .unsupportedSetupRole(r): "cannot answer setup role '\(r)'"
        case let .invalidOption(r): "invalid option: \(r)"
        }
    }
}
