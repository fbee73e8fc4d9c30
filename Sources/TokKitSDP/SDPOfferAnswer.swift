/// JSEP offer and answer creation (RFC 8829 §5.2, §5.3) for what TokKit implements: one BUNDLEd (RFC 8843),
/// rtcp-muxed (RFC 5761), DTLS-SRTP transport carrying Opus audio and VP8 video, the mid header extension, and
/// NACK / PLI / FIR (optionally REMB) feedback; optionally transport-wide congestion control (the transport-wide
/// sequence number extension and `transport-cc` feedback, draft-holmer-rmcat-transport-wide-cc-extensions-01).
extension SessionDescription {
    /// TokKit's audio payload type in its own offers (the one Chromium uses).
    public static let opusPayloadType: UInt8 = 111
    /// TokKit's video payload type in its own offers.
    public static let vp8PayloadType: UInt8 = 96
    /// TokKit's redundant audio payload type in its own offers (the one Chromium uses).
    public static let redPayloadType: UInt8 = 63
    /// The id TokKit's offers give the mid extension.
    public static let midExtensionID: UInt8 = 1
    /// The id TokKit's offers give the transport-wide sequence number extension (the one Chromium uses).
    public static let transportWideCCExtensionID: UInt8 = 3

    /// Feedback TokKit can act on for VP8.
    static func supportedVideoFeedback(remb: Bool, transportWideCC: Bool) -> Set<SDPFeedback> {
        var set: Set<SDPFeedback> = [.nack, .pictureLossIndication, .fullIntraRequest]
        if remb { set.insert(.receiverEstimatedMaximumBitrate) }
        if transportWideCC { set.insert(.transportWideCC) }
        return set
    }

    /// An offer with an audio section (mid 0) and a video section (mid 1) for the kinds `options` asks for, BUNDLEd,
    /// `setup:actpass`, trickle ICE.
    public static func offer(_ options: SDPLocalDescriptionOptions) throws(SDPError) -> SessionDescription {
        try options.validate()
        var description = SessionDescription(origin: SDPOrigin(sessionID: options.sessionID,
                                                               sessionVersion: options.sessionVersion))
        var mids: [String] = []
        for (kind, local) in [("audio", options.audio), ("video", options.video)] {
            guard let local else { continue }
            let mid = String(mids.count)
            mids.append(mid)
            let codec = kind == "audio"
                ? SDPCodec.opus(payloadType: opusPayloadType, transportWideCC: options.transportWideCC)
                : SDPCodec.vp8(payloadType: vp8PayloadType, remb: options.remb,
                               transportWideCC: options.transportWideCC)
            let codecs = kind == "audio" && options.audioRedundancy
                ? [SDPCodec.red(payloadType: redPayloadType, opusPayloadType: opusPayloadType), codec] : [codec]
            description.media.append(section(
                kind: kind, mid: mid, codecs: codecs, midExtensionID: midExtensionID,
                transportWideCCExtensionID: options.transportWideCC ? transportWideCCExtensionID : nil,
                direction: local.direction,
                track: local.track, setup: .actpass, reducedSize: true, options: options))
        }
        description.groups = [.bundle(mids)]
        description.extmapAllowMixed = true
        description.msidSemantic = msidSemantic(options)
        return description
    }

    /// The answer to `offer`: every offered section gets one (RFC 3264 §6); sections TokKit cannot take (kinds not in
    /// `options`, a second section of a kind, no Opus / VP8, no rtcp-mux, not RTP/SAVPF, outside the BUNDLE group)
    /// are rejected with port 0 (RFC 8829 §5.3.1). Without a BUNDLE group in the offer only the first acceptable
    /// section is taken, TokKit using a single transport.
    ///
    /// Throws if the offer lacks ICE credentials or a fingerprint for the accepted sections, or offers `holdconn`.
    public static func answer(
        to offer: SessionDescription, _ options: SDPLocalDescriptionOptions
    ) throws(SDPError) -> SessionDescription {
        try options.validate()
        var description = SessionDescription(origin: SDPOrigin(sessionID: options.sessionID,
                                                               sessionVersion: options.sessionVersion))
        let bundle = offer.bundleGroup
        var acceptedKinds: Set<String> = []
        var acceptedMids: [String] = []
        for offered in offer.media {
            let local = offered.kind == "audio" ? options.audio : offered.kind == "video" ? options.video : nil
            let codec = local == nil ? nil : supportedCodec(in: offered, options: options)
            let inBundle = bundle.map { group in offered.mid.map(group.mids.contains) ?? false }
                ?? acceptedMids.isEmpty
            guard let local, var codec, !offered.isRejected, offered.proto == "UDP/TLS/RTP/SAVPF", offered.rtcpMux,
                  inBundle, !acceptedKinds.contains(offered.kind)
            else {
                description.media.append(rejected(offered))
                continue
            }
            let transport = offer.transport(of: offered)
            guard transport.iceUfrag != nil, transport.icePassword != nil else { throw .missingICECredentials }
            guard !transport.fingerprints.isEmpty else { throw .missingFingerprint }
            // RFC 4145 §4: no setup attribute means the offerer is active.
            let setup = try (transport.setup ?? .active).answer(preferring: options.answerSetup)

            acceptedKinds.insert(offered.kind)
            if let mid = offered.mid { acceptedMids.append(mid) }
            // Feedback: what the offer lists for the codec and TokKit acts on, in the offer's order.
            let supported: Set<SDPFeedback> = codec.matches("VP8")
                ? supportedVideoFeedback(remb: options.remb, transportWideCC: options.transportWideCC)
                : options.transportWideCC ? [.transportWideCC] : []
            codec.feedback = (offered.codec(payloadType: codec.payloadType)?.feedback ?? []).filter(supported.contains)
            let direction = offered.effectiveDirection.answer(wanting: local.direction)
            // Redundant audio first (the codec a WebRTC sender then sends), when both ends want it.
            var codecs = [codec]
            if offered.kind == "audio", options.audioRedundancy,
               let red = offered.codecs.first(where: { $0.isRedundantAudio(of: codec.payloadType) }) {
                codecs.insert(SDPCodec.red(payloadType: red.payloadType, opusPayloadType: codec.payloadType), at: 0)
            }
            description.media.append(section(
                kind: offered.kind, mid: offered.mid, codecs: codecs,
                midExtensionID: offered.extensionID(SDPExtensionMap.midURI),
                transportWideCCExtensionID: options.transportWideCC
                    ? offered.extensionID(SDPExtensionMap.transportWideCCURI) : nil,
                direction: direction,
                track: direction.sends ? local.track : nil, setup: setup, reducedSize: offered.rtcpReducedSize,
                options: options))
        }
        if bundle != nil, !acceptedMids.isEmpty { description.groups = [.bundle(acceptedMids)] }
        description.extmapAllowMixed = offer.extmapAllowMixed
        description.msidSemantic = msidSemantic(options)
        return description
    }

    /// The first offered codec TokKit supports for the section's kind, written as TokKit will use it.
    static func supportedCodec(in offered: MediaDescription, options: SDPLocalDescriptionOptions) -> SDPCodec? {
        switch offered.kind {
        case "audio":
            offered.codecs.first { $0.matches("opus") && $0.clockRate == 48000 && $0.channels == 2 }
                .map { SDPCodec.opus(payloadType: $0.payloadType) }
        case "video":
            offered.codecs.first { $0.matches("VP8") && $0.clockRate == 90000 }
                .map { SDPCodec.vp8(payloadType: $0.payloadType, remb: options.remb) }
        default: nil
        }
    }

    /// A rejected section: same kind, proto and formats, port 0, its mid kept (RFC 8829 §5.3.1, RFC 3264 §6).
    static func rejected(_ offered: MediaDescription) -> MediaDescription {
        var m = MediaDescription(kind: offered.kind, port: 0, proto: offered.proto,
                                 formats: offered.formats.isEmpty ? ["0"] : offered.formats)
        m.connection = SDPConnection()
        m.mid = offered.mid
        m.direction = .inactive
        return m
    }

    static func section(
        kind: String, mid: String?, codecs: [SDPCodec], midExtensionID: UInt8?, transportWideCCExtensionID: UInt8?,
        direction: SDPDirection,
        track: SDPLocalMedia.Track?, setup: SDPSetupRole, reducedSize: Bool, options: SDPLocalDescriptionOptions
    ) -> MediaDescription {
        var m = MediaDescription(kind: kind, port: 9, formats: codecs.map { String($0.payloadType) })
        m.connection = SDPConnection()
        m.rtcp = "9 IN IP4 0.0.0.0"
        m.candidates = options.candidates
        m.endOfCandidates = options.endOfCandidates
        m.transport = SDPTransport(iceUfrag: options.iceUfrag, icePassword: options.icePassword,
                                   iceOptions: ["trickle"], fingerprints: [options.fingerprint], setup: setup)
        m.mid = mid
        if let midExtensionID { m.extensions = [SDPExtensionMap(id: midExtensionID, uri: SDPExtensionMap.midURI)] }
        if let transportWideCCExtensionID {
            m.extensions.append(SDPExtensionMap(id: transportWideCCExtensionID, uri: SDPExtensionMap.transportWideCCURI))
        }
        m.direction = direction
        m.rtcpMux = true
        m.rtcpReducedSize = reducedSize
        m.codecs = codecs
        if let track {
            m.mediaStreamIDs = [SDPMediaStreamID(streamID: track.streamID, trackID: track.trackID)]
            m.sources = track.layerSSRCs.flatMap { ssrc in [
                SDPSource(ssrc: ssrc, attribute: "cname", value: track.cname),
                SDPSource(ssrc: ssrc, attribute: "msid", value: "\(track.streamID) \(track.trackID)"),
            ] }
            if !track.simulcastSSRCs.isEmpty {
                m.sourceGroups = [SDPSourceGroup(semantics: "SIM", ssrcs: track.layerSSRCs)]
            }
        }
        return m
    }

    static func msidSemantic(_ options: SDPLocalDescriptionOptions) -> String {
        var streams: [String] = []
        for track in [options.audio?.track, options.video?.track].compactMap({ $0 })
        where !streams.contains(track.streamID) {
            streams.append(track.streamID)
        }
        return ([" WMS"] + streams).joined(separator: " ")
    }
}
