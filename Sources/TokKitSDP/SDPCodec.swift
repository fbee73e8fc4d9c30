/// One RTP payload format of an m= section: its `a=rtpmap` (RFC 8866 §6.6) together with its `a=fmtp` (§6.15)
/// and `a=rtcp-fb` lines (RFC 4585 §4.2).
public struct SDPCodec: Hashable, Sendable {
    public var payloadType: UInt8
    /// Encoding name as written (`opus`, `VP8`, `rtx`...); compare with ``matches(_:)``.
    public var name: String
    public var clockRate: Int
    /// Audio channels, nil when the rtpmap has no third field.
    public var channels: Int?
    /// The fmtp value as written (`minptime=10;useinbandfec=1`), nil when absent.
    public var formatParameters: String?
    public var feedback: [SDPFeedback]

    public init(payloadType: UInt8, name: String, clockRate: Int, channels: Int? = nil,
                formatParameters: String? = nil, feedback: [SDPFeedback] = []) {
        self.payloadType = payloadType
        self.name = name
        self.clockRate = clockRate
        self.channels = channels
        self.formatParameters = formatParameters
        self.feedback = feedback
    }

    /// Whether the encoding name matches (case-insensitively, RFC 8866 §6.6).
    public func matches(_ encoding: String) -> Bool { name.lowercased() == encoding.lowercased() }

    /// The fmtp parameters as `key=value` pairs in order; a parameter without `=` (e.g. `111/111` for red) has an
    /// empty value.
    public var parameters: [(key: String, value: String)] {
        guard let formatParameters else { return [] }
        return formatParameters.split(separator: ";").map { item in
            let trimmed = item.drop { $0 == " " }
            guard let eq = trimmed.firstIndex(of: "=") else { return (String(trimmed), "") }
            return (String(trimmed[..<eq]), String(trimmed[trimmed.index(after: eq)...]))
        }
    }

    /// The value of fmtp parameter `key`, if present.
    public func parameter(_ key: String) -> String? { parameters.first { $0.key == key }?.value }

    /// Opus in WebRTC: 48 kHz, 2 channels in SDP (RFC 7587 §7), with `minptime=10;useinbandfec=1`, optionally
    /// with `transport-cc` feedback.
    public static func opus(payloadType: UInt8 = 111, transportWideCC: Bool = false) -> SDPCodec {
        SDPCodec(payloadType: payloadType, name: "opus", clockRate: 48000, channels: 2,
                 formatParameters: "minptime=10;useinbandfec=1", feedback: transportWideCC ? [.transportWideCC] : [])
    }

    /// Redundant audio (RFC 2198, `red/48000/2`) carrying Opus blocks, as WebRTC offers it: `fmtp` `111/111`
    /// (two blocks: one redundant, the primary).
    public static func red(payloadType: UInt8 = 63, opusPayloadType: UInt8 = 111) -> SDPCodec {
        SDPCodec(payloadType: payloadType, name: "red", clockRate: 48000, channels: 2,
                 formatParameters: "\(opusPayloadType)/\(opusPayloadType)")
    }

    /// Whether this is `red/48000/2` whose blocks (its fmtp, RFC 2198 §5) are all payload type `blockPayloadType`.
    public func isRedundantAudio(of blockPayloadType: UInt8) -> Bool {
        guard matches("red"), clockRate == 48000, channels == 2, let formatParameters else { return false }
        let blocks = formatParameters.split(separator: "/", omittingEmptySubsequences: false)
        return (1 ... 8).contains(blocks.count) && blocks.allSatisfy { UInt8($0) == blockPayloadType }
    }

    /// VP8 (RFC 7741 §6.1) with the feedback TokKit implements: NACK, PLI, FIR and optionally REMB and
    /// transport-cc (in Chromium's order).
    public static func vp8(payloadType: UInt8 = 96, remb: Bool = false, transportWideCC: Bool = false) -> SDPCodec {
        SDPCodec(payloadType: payloadType, name: "VP8", clockRate: 90000,
                 feedback: (remb ? [.receiverEstimatedMaximumBitrate] : [])
                     + (transportWideCC ? [.transportWideCC] : []) + [.fullIntraRequest, .nack, .pictureLossIndication])
    }

    /// Parses an rtpmap value after the payload type: `<encoding name>/<clock rate>[/<encoding parameters>]`.
    init?(payloadType: UInt8, rtpmap: Substring) {
        let parts = rtpmap.split(separator: "/", omittingEmptySubsequences: false)
        guard (2 ... 3).contains(parts.count), isToken(parts[0]), let rate = Int(parts[1]), (1 ... 10_000_000).contains(rate)
        else { return nil }
        var channels: Int? = nil
        if parts.count == 3 {
            guard let c = Int(parts[2]), (1 ... 255).contains(c) else { return nil }
            channels = c
        }
        self.init(payloadType: payloadType, name: String(parts[0]), clockRate: rate, channels: channels)
    }

    var rtpmap: String { "\(payloadType) \(name)/\(clockRate)" + (channels.map { "/\($0)" } ?? "") }
}
