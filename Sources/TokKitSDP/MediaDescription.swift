/// One m= section (RFC 8866 §5.14) with the attributes WebRTC uses, typed; anything else is kept in ``attributes``.
///
/// Codecs are assembled from `a=rtpmap`, `a=fmtp` and `a=rtcp-fb` in the order of the m= line's formats.
public struct MediaDescription: Hashable, Sendable {
    /// `audio`, `video`, `application`...
    public var kind: String
    /// 0 marks a rejected (or bundle-only) section (RFC 3264 §6, RFC 8843 §7.1.1); JSEP writes 9 otherwise.
    public var port: UInt16
    public var portCount: Int?
    /// `UDP/TLS/RTP/SAVPF` for WebRTC media (RFC 8829 §5.1.2).
    public var proto: String
    /// Payload types (as strings, as the m= line lists them).
    public var formats: [String]

    /// `i=`, `b=` and `k=` lines as written (type, value).
    public var otherLines: [SDPRawLine]
    public var connection: SDPConnection?
    public var mid: String?
    /// nil when the section has no direction attribute (meaning `sendrecv`).
    public var direction: SDPDirection?
    public var rtcpMux: Bool
    public var rtcpReducedSize: Bool
    /// `a=rtcp` value as written (RFC 3605), e.g. `9 IN IP4 0.0.0.0`.
    public var rtcp: String?
    public var transport: SDPTransport
    public var codecs: [SDPCodec]
    /// `a=rtcp-fb:*` lines, applying to every payload type.
    public var wildcardFeedback: [SDPFeedback]
    public var extensions: [SDPExtensionMap]
    public var mediaStreamIDs: [SDPMediaStreamID]
    public var sources: [SDPSource]
    public var sourceGroups: [SDPSourceGroup]
    public var candidates: [SDPCandidate]
    public var endOfCandidates: Bool
    public var attributes: [SDPAttribute]

    public init(kind: String, port: UInt16 = 9, proto: String = "UDP/TLS/RTP/SAVPF", formats: [String] = []) {
        self.kind = kind
        self.port = port
        self.portCount = nil
        self.proto = proto
        self.formats = formats
        self.otherLines = []
        self.connection = nil
        self.mid = nil
        self.direction = nil
        self.rtcpMux = false
        self.rtcpReducedSize = false
        self.rtcp = nil
        self.transport = SDPTransport()
        self.codecs = []
        self.wildcardFeedback = []
        self.extensions = []
        self.mediaStreamIDs = []
        self.sources = []
        self.sourceGroups = []
        self.candidates = []
        self.endOfCandidates = false
        self.attributes = []
    }

    /// Port 0 without `a=bundle-only`: the section was rejected or removed.
    public var isRejected: Bool { port == 0 && !attributes.contains { $0.name == "bundle-only" } }

    /// The effective direction (`sendrecv` when absent).
    public var effectiveDirection: SDPDirection { direction ?? .sendrecv }

    /// The codec with payload type `pt`, if present.
    public func codec(payloadType pt: UInt8) -> SDPCodec? { codecs.first { $0.payloadType == pt } }

    /// The local id of extension `uri`, if negotiated.
    public func extensionID(_ uri: String) -> UInt8? { extensions.first { $0.uri == uri }?.id }

    /// The value of source attribute `attribute` (e.g. `cname`) for `ssrc`.
    public func sourceAttribute(_ attribute: String, ssrc: UInt32) -> String? {
        sources.first { $0.ssrc == ssrc && $0.attribute == attribute }?.value
    }

    // MARK: Parsing

    /// Parses `m=<media> <port>[/<count>] <proto> <fmt> ...`.
    init(mLine value: Substring, line: Int) throws(SDPError) {
        let f = value.fields
        guard f.count >= 4, isToken(f[0]), isVisible(f[2]) else { throw .invalidValue(line: line, field: "m= line") }
        let portParts = f[1].split(separator: "/", omittingEmptySubsequences: false)
        guard (1 ... 2).contains(portParts.count), let port = UInt16(portParts[0]) else {
            throw .invalidValue(line: line, field: "m= port")
        }
        self.init(kind: String(f[0]), port: port, proto: String(f[2]))
        if portParts.count == 2 {
            guard let count = Int(portParts[1]), (1 ... 65535).contains(count) else {
                throw .invalidValue(line: line, field: "m= port count")
            }
            portCount = count
        }
        for format in f[3...] {
            guard isToken(format) || isVisible(format) else { throw .invalidValue(line: line, field: "m= format") }
            formats.append(String(format))
        }
    }

    /// Collects the lines of one section and assembles the codecs.
    static func parse(mLine: SDPLine, body: ArraySlice<SDPLine>) throws(SDPError) -> MediaDescription {
        var media = try MediaDescription(mLine: mLine.value, line: mLine.number)
        var rtpmaps: [UInt8: SDPCodec] = [:]
        var fmtps: [UInt8: String] = [:]
        var feedback: [(UInt8, SDPFeedback)] = []
        for line in body {
            switch line.type {
            case "i", "b", "k": media.otherLines.append(SDPRawLine(type: line.type, value: String(line.value)))
            case "c":
                guard let c = SDPConnection(sdp: line.value) else {
                    throw .invalidValue(line: line.number, field: "connection")
                }
                media.connection = c
            case "a": try media.parseAttribute(line, rtpmaps: &rtpmaps, fmtps: &fmtps, feedback: &feedback)
            default: throw .unexpectedLine(line: line.number, type: line.type)
            }
        }
        media.otherLines = SDPRawLine.canonicalOrder(media.otherLines, ranks: "ibk")
        // Codecs in the order of the m= line; fmtp/rtcp-fb of unknown payload types stay generic attributes.
        for format in media.formats {
            guard let pt = UInt8(format), var codec = rtpmaps.removeValue(forKey: pt) else { continue }
            codec.formatParameters = fmtps.removeValue(forKey: pt)
            codec.feedback = feedback.filter { $0.0 == pt }.map(\.1)
            feedback.removeAll { $0.0 == pt }
            media.codecs.append(codec)
        }
        for codec in rtpmaps.values.sorted(by: { $0.payloadType < $1.payloadType }) {
            media.attributes.append(SDPAttribute("rtpmap", codec.rtpmap))
        }
        for (pt, parameters) in fmtps.sorted(by: { $0.key < $1.key }) {
            media.attributes.append(SDPAttribute("fmtp", "\(pt) \(parameters)"))
        }
        for (pt, fb) in feedback { media.attributes.append(SDPAttribute("rtcp-fb", "\(pt) \(fb)")) }
        return media
    }

    private mutating func parseAttribute(
        _ line: SDPLine, rtpmaps: inout [UInt8: SDPCodec], fmtps: inout [UInt8: String],
        feedback: inout [(UInt8, SDPFeedback)]
    ) throws(SDPError) {
        let (name, value) = line.value.nameAndValue
        let n = line.number
        if try transport.parse(name: name, value: value, line: n) { return }
        switch name {
        case "mid":
            guard let value, value.utf8.count <= 64, isVisible(value) else { throw .invalidValue(line: n, field: "mid") }
            mid = String(value)
        case "sendrecv", "sendonly", "recvonly", "inactive": direction = SDPDirection(rawValue: String(name))
        case "rtcp-mux": rtcpMux = true
        case "rtcp-rsize": rtcpReducedSize = true
        case "rtcp": rtcp = value.map(String.init)
        case "end-of-candidates": endOfCandidates = true
        case "rtpmap":
            guard let value, let space = value.firstIndex(of: " "), let pt = UInt8(value[..<space]), pt <= 127,
                  let codec = SDPCodec(payloadType: pt, rtpmap: value[value.index(after: space)...]),
                  rtpmaps[pt] == nil
            else { throw .invalidValue(line: n, field: "rtpmap") }
            rtpmaps[pt] = codec
        case "fmtp":
            guard let value, let space = value.firstIndex(of: " "), let pt = UInt8(value[..<space]), pt <= 127,
                  fmtps[pt] == nil
            else { throw .invalidValue(line: n, field: "fmtp") }
            fmtps[pt] = String(value[value.index(after: space)...])
        case "rtcp-fb":
            let f = value?.fields ?? []
            guard f.count >= 2, let fb = SDPFeedback(fields: f[1...]) else {
                throw .invalidValue(line: n, field: "rtcp-fb")
            }
            if f[0] == "*" {
                wildcardFeedback.append(fb)
            } else {
                guard let pt = UInt8(f[0]), pt <= 127 else { throw .invalidValue(line: n, field: "rtcp-fb") }
                feedback.append((pt, fb))
            }
        case "extmap":
            guard let value, let map = SDPExtensionMap(sdp: value) else { throw .invalidValue(line: n, field: "extmap") }
            extensions.append(map)
        case "msid":
            guard let value, let msid = SDPMediaStreamID(sdp: value) else { throw .invalidValue(line: n, field: "msid") }
            mediaStreamIDs.append(msid)
        case "ssrc":
            guard let value, let source = SDPSource(sdp: value) else { throw .invalidValue(line: n, field: "ssrc") }
            sources.append(source)
        case "ssrc-group":
            guard let value, let group = SDPSourceGroup(sdp: value) else {
                throw .invalidValue(line: n, field: "ssrc-group")
            }
            sourceGroups.append(group)
        case "candidate":
            guard let value else { throw .invalidValue(line: n, field: "candidate") }
            do throws(SDPError) {
                candidates.append(try SDPCandidate(parsing: String(value)))
            } catch {
                throw .invalidValue(line: n, field: "candidate")
            }
        default:
            guard isToken(name) else { throw .invalidValue(line: n, field: "attribute name") }
            attributes.append(SDPAttribute(String(name), value.map(String.init)))
        }
    }

    // MARK: Serialization

    /// The section's lines, in the order browsers write them.
    var lines: [String] {
        var out = ["m=\(kind) \(port)\(portCount.map { "/\($0)" } ?? "") \(proto) \(formats.joined(separator: " "))"]
        for l in otherLines where l.type == "i" { out.append(l.sdp) }
        if let connection { out.append("c=\(connection.sdp)") }
        for l in otherLines where l.type != "i" { out.append(l.sdp) }  // b=, k= (RFC 8866 §5 order)
        if let rtcp { out.append("a=rtcp:\(rtcp)") }
        for c in candidates { out.append("a=candidate:\(c.sdp)") }
        if endOfCandidates { out.append("a=end-of-candidates") }
        out += transport.lines
        if let mid { out.append("a=mid:\(mid)") }
        for e in extensions { out.append("a=extmap:\(e.sdp)") }
        if let direction { out.append("a=\(direction.rawValue)") }
        for m in mediaStreamIDs { out.append("a=msid:\(m.sdp)") }
        if rtcpMux { out.append("a=rtcp-mux") }
        if rtcpReducedSize { out.append("a=rtcp-rsize") }
        for a in attributes { out.append("a=\(a)") }
        for fb in wildcardFeedback { out.append("a=rtcp-fb:* \(fb)") }
        for codec in codecs {
            out.append("a=rtpmap:\(codec.rtpmap)")
            for fb in codec.feedback { out.append("a=rtcp-fb:\(codec.payloadType) \(fb)") }
            if let p = codec.formatParameters { out.append("a=fmtp:\(codec.payloadType) \(p)") }
        }
        for g in sourceGroups { out.append("a=ssrc-group:\(g.sdp)") }
        for s in sources { out.append("a=ssrc:\(s.sdp)") }
        return out
    }
}

/// A line TokKitSDP keeps as written (`i=`, `u=`, `e=`, `p=`, `b=`, `r=`, `z=`, `k=`).
public struct SDPRawLine: Hashable, Sendable {
    public var type: Character
    public var value: String

    public init(type: Character, value: String) {
        self.type = type
        self.value = value
    }

    var sdp: String { "\(type)=\(value)" }

    /// `lines` stably sorted by the position of their type in `ranks` (the RFC 8866 §5 order), so that a parsed
    /// description serializes in grammar order and parses back to the same value.
    static func canonicalOrder(_ lines: [SDPRawLine], ranks: String) -> [SDPRawLine] {
        let order = Array(ranks)
        return lines.enumerated()
            .sorted { a, b in
                let ra = order.firstIndex(of: a.element.type) ?? order.count
                let rb = order.firstIndex(of: b.element.type) ?? order.count
                return ra != rb ? ra < rb : a.offset < b.offset
            }
            .map(\.element)
    }
}
