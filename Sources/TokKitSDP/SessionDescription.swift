/// A session description (RFC 8866) with the JSEP subset (RFC 8829) browsers exchange, typed.
///
/// ``init(parsing:limits:)`` enforces ``SDPLimits`` before allocating per line, checks the line grammar of
/// RFC 8866 §5 and §9 (v/o/s first, then session lines, at least one t=, then m= sections) and the value grammar of
/// every attribute it types; attributes it does not know are kept in ``attributes``. ``sdp`` writes CRLF-terminated
/// lines in the order browsers use, so `parse(sdp)` reproduces the same value. A plain value: control plane, any
/// thread.
public struct SessionDescription: Hashable, Sendable {
    public var origin: SDPOrigin
    public var sessionName: String
    /// `i=`, `u=`, `e=`, `p=`, `b=`, `r=`, `z=`, `k=` lines as written.
    public var otherLines: [SDPRawLine]
    public var connection: SDPConnection?
    /// `t=` values (`0 0` for WebRTC).
    public var times: [String]
    public var groups: [SDPGroup]
    public var extmapAllowMixed: Bool
    /// `a=msid-semantic` value as written (e.g. ` WMS <stream-id>`), obsolete but still sent by Chromium.
    public var msidSemantic: String?
    public var iceLite: Bool
    public var transport: SDPTransport
    public var attributes: [SDPAttribute]
    public var media: [MediaDescription]

    public init(origin: SDPOrigin, sessionName: String = "-", media: [MediaDescription] = []) {
        self.origin = origin
        self.sessionName = sessionName
        self.otherLines = []
        self.connection = nil
        self.times = ["0 0"]
        self.groups = []
        self.extmapAllowMixed = false
        self.msidSemantic = nil
        self.iceLite = false
        self.transport = SDPTransport()
        self.attributes = []
        self.media = media
    }

    /// The first BUNDLE group (RFC 8843), if any.
    public var bundleGroup: SDPGroup? { groups.first { $0.semantics == "BUNDLE" } }

    /// The ICE/DTLS attributes that apply to `media`: its own, completed by the session's.
    public func transport(of media: MediaDescription) -> SDPTransport { media.transport.overriding(transport) }

    // MARK: Parsing

    /// Parses `text` (CRLF or LF line endings).
    public init(parsing text: String, limits: SDPLimits = .default) throws(SDPError) {
        let lines = try SDPLine.split(text, limits: limits)
        guard let v = lines.first, v.type == "v" else {
            throw lines.first.map { .unexpectedLine(line: $0.number, type: $0.type) } ?? .missingLine(type: "v")
        }
        guard v.value == "0" else { throw .invalidValue(line: v.number, field: "version") }
        guard lines.count > 1, lines[1].type == "o" else { throw .missingLine(type: "o") }
        guard let origin = SDPOrigin(sdp: lines[1].value) else { throw .invalidValue(line: lines[1].number, field: "origin") }
        guard lines.count > 2, lines[2].type == "s" else { throw .missingLine(type: "s") }
        self.init(origin: origin, sessionName: String(lines[2].value))
        times = []

        var index = 3
        while index < lines.count, lines[index].type != "m" {
            let line = lines[index]
            index += 1
            switch line.type {
            case "i", "u", "e", "p", "b", "r", "z", "k":
                if line.type == "r", times.isEmpty { throw .unexpectedLine(line: line.number, type: line.type) }
                otherLines.append(SDPRawLine(type: line.type, value: String(line.value)))
            case "c":
                guard connection == nil, let c = SDPConnection(sdp: line.value) else {
                    throw .invalidValue(line: line.number, field: "connection")
                }
                connection = c
            case "t":
                let f = line.value.fields
                guard f.count == 2, UInt64(f[0]) != nil, UInt64(f[1]) != nil else {
                    throw .invalidValue(line: line.number, field: "timing")
                }
                times.append(String(line.value))
            case "a": try parseAttribute(line)
            default: throw .unexpectedLine(line: line.number, type: line.type)
            }
        }
        guard !times.isEmpty else { throw .missingLine(type: "t") }
        otherLines = SDPRawLine.canonicalOrder(otherLines, ranks: "iuepbrzk")

        while index < lines.count {
            let mLine = lines[index]
            var end = index + 1
            while end < lines.count, lines[end].type != "m" { end += 1 }
            guard media.count < limits.maximumMediaSections else {
                throw .tooManyMediaSections(limit: limits.maximumMediaSections)
            }
            media.append(try MediaDescription.parse(mLine: mLine, body: lines[(index + 1) ..< end]))
            index = end
        }
    }

    private mutating func parseAttribute(_ line: SDPLine) throws(SDPError) {
        let (name, value) = line.value.nameAndValue
        if try transport.parse(name: name, value: value, line: line.number) { return }
        switch name {
        case "group":
            guard let value, let group = SDPGroup(sdp: value) else {
                throw .invalidValue(line: line.number, field: "group")
            }
            groups.append(group)
        case "extmap-allow-mixed": extmapAllowMixed = true
        case "ice-lite": iceLite = true
        case "msid-semantic": msidSemantic = value.map(String.init) ?? ""
        default:
            guard isToken(name) else { throw .invalidValue(line: line.number, field: "attribute name") }
            attributes.append(SDPAttribute(String(name), value.map(String.init)))
        }
    }

    // MARK: Serialization

    /// The description as text, CRLF after every line (RFC 8866 §5).
    public var sdp: String {
        var out = ["v=0", "o=\(origin.sdp)", "s=\(sessionName)"]
        // RFC 8866 §5 order: i u e p c b t r z k.
        for l in otherLines where "iuep".contains(l.type) { out.append(l.sdp) }
        if let connection { out.append("c=\(connection.sdp)") }
        for l in otherLines where l.type == "b" { out.append(l.sdp) }
        for t in times.isEmpty ? ["0 0"] : times { out.append("t=\(t)") }
        for l in otherLines where "rzk".contains(l.type) { out.append(l.sdp) }
        for g in groups { out.append("a=group:\(g.sdp)") }
        if extmapAllowMixed { out.append("a=extmap-allow-mixed") }
        if let msidSemantic { out.append("a=msid-semantic:\(msidSemantic)") }
        if iceLite { out.append("a=ice-lite") }
        out += transport.lines
        for a in attributes { out.append("a=\(a)") }
        for m in media { out += m.lines }
        return out.joined(separator: "\r\n") + "\r\n"
    }
}
