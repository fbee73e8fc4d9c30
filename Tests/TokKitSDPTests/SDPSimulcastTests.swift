import Testing
import TokKitSDP

/// Simulcast in TokKit's own descriptions: the smaller layers' SSRCs and `a=ssrc-group:SIM` (RFC 5576 §4.2), the
/// legacy signalling Janus reads (its substream 0 is the group's first SSRC: the smallest layer).
@Suite struct SDPSimulcastTests {
    private func options(simulcast: [UInt32]) -> SDPLocalDescriptionOptions {
        var o = tokkitOptions()
        o.audio?.receives = false
        o.video = SDPLocalMedia(track: .init(streamID: "tokkit", trackID: "tokkit-video", ssrc: 2222,
                                             cname: "tokkit-cname", simulcastSSRCs: simulcast), receives: false)
        return o
    }

    @Test func anOfferWithThreeLayersListsEachSSRCAndTheSIMGroupSmallestFirst() throws {
        let offer = try SessionDescription.offer(options(simulcast: [3333, 4444]))
        let video = try #require(offer.media.first { $0.kind == "video" })
        #expect(video.sourceGroups == [SDPSourceGroup(semantics: "SIM", ssrcs: [3333, 4444, 2222])])
        for ssrc: UInt32 in [3333, 4444, 2222] {
            #expect(video.sourceAttribute("cname", ssrc: ssrc) == "tokkit-cname")
            #expect(video.sourceAttribute("msid", ssrc: ssrc) == "tokkit tokkit-video")
        }
        #expect(video.direction == .sendonly)
        // Written as text (hand-checked lines) and parsed back to itself.
        let text = offer.sdp
        #expect(text.contains("a=ssrc-group:SIM 3333 4444 2222\r\n"))
        #expect(text.contains("a=ssrc:3333 cname:tokkit-cname\r\n"))
        #expect(text.contains("a=ssrc:4444 msid:tokkit tokkit-video\r\n"))
        #expect(try SessionDescription(parsing: text) == offer)
        // Audio never carries a group.
        let audio = try #require(offer.media.first { $0.kind == "audio" })
        #expect(audio.sourceGroups.isEmpty)
    }

    @Test func oneLayerHasNoGroup() throws {
        let offer = try SessionDescription.offer(options(simulcast: []))
        let video = try #require(offer.media.first { $0.kind == "video" })
        #expect(video.sourceGroups.isEmpty)
        #expect(video.sources.map(\.ssrc) == [2222, 2222])
        #expect(!offer.sdp.contains("ssrc-group"))
    }

    @Test func refusesMoreThanThreeLayersRepeatedSSRCsAndAudioSimulcast() {
        #expect(throws: SDPError.self) { try SessionDescription.offer(options(simulcast: [1, 2, 3])) }
        #expect(throws: SDPError.self) { try SessionDescription.offer(options(simulcast: [2222])) }
        #expect(throws: SDPError.self) { try SessionDescription.offer(options(simulcast: [7, 7])) }
        var o = options(simulcast: [])
        o.audio?.track?.simulcastSSRCs = [5]
        #expect(throws: SDPError.self) { try SessionDescription.offer(o) }
    }
}
