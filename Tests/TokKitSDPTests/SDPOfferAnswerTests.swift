import Testing
import TokKitSDP

/// Local options as a TokKit publisher would pass them.
func tokkitOptions(audio: Bool = true, video: Bool = true, remb: Bool = false) -> SDPLocalDescriptionOptions {
    SDPLocalDescriptionOptions(
        iceUfrag: "TkKt", icePassword: "tokkit-ice-password-0123",
        fingerprint: SDPFingerprint(digest: Array(0 ..< 32)),
        candidates: [SDPCandidate(foundation: "1", priority: 2_130_706_431, address: "127.0.0.1", port: 50000)],
        endOfCandidates: true,
        audio: audio ? SDPLocalMedia(track: .init(streamID: "tokkit", trackID: "tokkit-audio", ssrc: 1111,
                                                  cname: "tokkit-cname")) : nil,
        video: video ? SDPLocalMedia(track: .init(streamID: "tokkit", trackID: "tokkit-video", ssrc: 2222,
                                                  cname: "tokkit-cname")) : nil,
        remb: remb, sessionID: 42)
}

@Suite struct SDPOfferAnswerTests {
    @Test func answersTheChromiumOfferWithOpusAndVP8Only() throws {
        let offer = try SessionDescription(parsing: chromiumOffer)
        let answer = try SessionDescription.answer(to: offer, tokkitOptions())
        #expect(answer.bundleGroup == .bundle(["0", "1"]))
        #expect(answer.extmapAllowMixed)
        #expect(answer.media.count == 2)

        let audio = answer.media[0]
        #expect(audio.port == 9 && audio.formats == ["111"] && audio.mid == "0")
        #expect(audio.codecs == [SDPCodec(payloadType: 111, name: "opus", clockRate: 48000, channels: 2,
                                          formatParameters: "minptime=10;useinbandfec=1")])
        #expect(audio.extensions == [SDPExtensionMap(id: 4, uri: SDPExtensionMap.midURI)])
        #expect(audio.direction == .sendrecv && audio.rtcpMux && audio.rtcpReducedSize)
        #expect(audio.transport.setup == .active)
        #expect(audio.transport.iceUfrag == "TkKt" && audio.transport.iceOptions == ["trickle"])
        #expect(audio.sourceAttribute("cname", ssrc: 1111) == "tokkit-cname")
        #expect(audio.mediaStreamIDs == [SDPMediaStreamID(streamID: "tokkit", trackID: "tokkit-audio")])
        #expect(audio.candidates.count == 1 && audio.endOfCandidates)

        let video = answer.media[1]
        #expect(video.formats == ["96"] && video.mid == "1")
        #expect(video.codecs.count == 1)
        #expect(video.codecs[0].feedback == [.fullIntraRequest, .nack, .pictureLossIndication])
        #expect(video.sourceGroups.isEmpty)  // no rtx
        #expect(video.extensions == [SDPExtensionMap(id: 4, uri: SDPExtensionMap.midURI)])

        let withREMB = try SessionDescription.answer(to: offer, tokkitOptions(remb: true))
        #expect(withREMB.media[1].codecs[0].feedback
            == [.receiverEstimatedMaximumBitrate, .fullIntraRequest, .nack, .pictureLossIndication])

        // The answer is valid SDP that parses back to itself.
        #expect(try SessionDescription(parsing: answer.sdp) == answer)
    }

    @Test func rejectsWhatTokKitDoesNotSupport() throws {
        // Add a data channel section and an H264-only video section to the browser offer.
        var offer = try SessionDescription(parsing: chromiumOffer)
        var data = MediaDescription(kind: "application", port: 9, proto: "UDP/DTLS/SCTP",
                                    formats: ["webrtc-datachannel"])
        data.mid = "2"
        var h264 = offer.media[1]
        h264.mid = "3"
        h264.codecs = h264.codecs.filter { $0.matches("H264") }
        h264.formats = h264.codecs.map { String($0.payloadType) }
        offer.media += [data, h264]
        offer.groups = [.bundle(["0", "1", "2", "3"])]

        let answer = try SessionDescription.answer(to: offer, tokkitOptions(audio: false))
        #expect(answer.media.map(\.port) == [0, 9, 0, 0])
        #expect(answer.media.map(\.mid) == ["0", "1", "2", "3"])
        #expect(answer.media[0].formats == offer.media[0].formats)  // rejected sections echo the offer's formats
        #expect(answer.media[2].kind == "application" && answer.media[2].proto == "UDP/DTLS/SCTP")
        #expect(answer.media.allSatisfy { $0.port != 0 || $0.codecs.isEmpty })
        #expect(answer.bundleGroup == .bundle(["1"]))
        #expect(try SessionDescription(parsing: answer.sdp) == answer)
    }

    @Test func answerDirectionsAndRolesFollowTheOffer() throws {
        var offer = try SessionDescription(parsing: chromiumOffer)
        offer.media[0].direction = .recvonly
        offer.media[1].direction = .sendonly
        offer.media[1].transport.setup = .passive
        offer.media[0].transport.setup = .active
        let answer = try SessionDescription.answer(to: offer, tokkitOptions())
        #expect(answer.media[0].direction == .sendonly)
        #expect(answer.media[1].direction == .recvonly)
        #expect(answer.media[1].sources.isEmpty && answer.media[1].mediaStreamIDs.isEmpty)  // nothing sent
        #expect(answer.media[0].transport.setup == .passive)
        #expect(answer.media[1].transport.setup == .active)
    }

    @Test func withoutBundleOnlyTheFirstSectionIsTaken() throws {
        var offer = try SessionDescription(parsing: chromiumOffer)
        offer.groups = []
        let answer = try SessionDescription.answer(to: offer, tokkitOptions())
        #expect(answer.media.map(\.port) == [9, 0])
        #expect(answer.bundleGroup == nil)
    }

    @Test func refusesOffersWithoutCredentialsOrWithHoldconn() throws {
        var offer = try SessionDescription(parsing: chromiumOffer)
        offer.media[0].transport.fingerprints = []
        #expect(throws: SDPError.missingFingerprint) { try SessionDescription.answer(to: offer, tokkitOptions()) }
        offer = try SessionDescription(parsing: chromiumOffer)
        offer.media[0].transport.icePassword = nil
        #expect(throws: SDPError.missingICECredentials) { try SessionDescription.answer(to: offer, tokkitOptions()) }
        offer = try SessionDescription(parsing: chromiumOffer)
        offer.media[0].transport.setup = .holdconn
        #expect(throws: SDPError.unsupportedSetupRole("holdconn")) {
            try SessionDescription.answer(to: offer, tokkitOptions())
        }
        var options = tokkitOptions()
        options.iceUfrag = "a b"
        #expect(throws: SDPError.invalidOption("ice-ufrag must be 4-256 visible characters")) {
            try SessionDescription.answer(to: offer, options)
        }
    }

    @Test func offerHasBundleMuxOpusVP8AndActpass() throws {
        let offer = try SessionDescription.offer(tokkitOptions(remb: true))
        let text = offer.sdp
        for line in [
            "a=group:BUNDLE 0 1", "m=audio 9 UDP/TLS/RTP/SAVPF 111", "m=video 9 UDP/TLS/RTP/SAVPF 96",
            "a=rtpmap:111 opus/48000/2", "a=fmtp:111 minptime=10;useinbandfec=1", "a=rtpmap:96 VP8/90000",
            "a=rtcp-fb:96 goog-remb", "a=rtcp-fb:96 ccm fir", "a=rtcp-fb:96 nack", "a=rtcp-fb:96 nack pli",
            "a=rtcp-mux", "a=rtcp-rsize", "a=setup:actpass", "a=ice-options:trickle", "a=ice-ufrag:TkKt",
            "a=ice-pwd:tokkit-ice-password-0123", "a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid",
            "a=msid:tokkit tokkit-video", "a=ssrc:2222 cname:tokkit-cname", "a=mid:0", "a=mid:1",
            "a=fingerprint:sha-256 00:01:02:03:04:05:06:07:08:09:0A:0B:0C:0D:0E:0F:10:11:12:13:14:15:16:17:18:19:1A:1B:1C:1D:1E:1F",
            "a=candidate:1 1 udp 2130706431 127.0.0.1 50000 typ host", "a=end-of-candidates",
        ] {
            #expect(text.contains(line + "\r\n"), "\(line)")
        }
        #expect(try SessionDescription(parsing: text) == offer)

        let audioOnly = try SessionDescription.offer(tokkitOptions(video: false))
        #expect(audioOnly.media.map(\.kind) == ["audio"] && audioOnly.bundleGroup == .bundle(["0"]))
    }
}
