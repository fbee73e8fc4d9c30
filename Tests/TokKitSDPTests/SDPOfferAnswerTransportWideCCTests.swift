import Testing
import TokKitSDP

/// Transport-wide congestion control in TokKit's offers and answers: the transport-wide sequence number extension
/// (`a=extmap`, the same id on every BUNDLEd section) and `a=rtcp-fb:<pt> transport-cc` on VP8 and Opus, as
/// Chromium writes them.
@Suite struct SDPOfferAnswerTransportWideCCTests {
    static func options(transportWideCC: Bool) -> SDPLocalDescriptionOptions {
        var options = tokkitOptions()
        options.transportWideCC = transportWideCC
        return options
    }

    @Test func anOfferAsksForTransportCCOnEverySection() throws {
        let offer = try SessionDescription.offer(Self.options(transportWideCC: true))
        #expect(offer.media.count == 2)
        for m in offer.media {
            #expect(m.extensions == [
                SDPExtensionMap(id: SessionDescription.midExtensionID, uri: SDPExtensionMap.midURI),
                SDPExtensionMap(id: 3, uri: SDPExtensionMap.transportWideCCURI),
            ])
            #expect(m.codecs.first?.feedback.contains(.transportWideCC) == true, "\(m.kind)")
        }
        #expect(offer.media[1].codecs[0].feedback == [.transportWideCC, .fullIntraRequest, .nack,
                                                      .pictureLossIndication])
        let text = offer.sdp
        #expect(text.contains("a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\r\n"))
        #expect(text.contains("a=rtcp-fb:96 transport-cc\r\n") && text.contains("a=rtcp-fb:111 transport-cc\r\n"))
        #expect(try SessionDescription(parsing: text) == offer)

        // Off: neither the extension nor the feedback.
        let plain = try SessionDescription.offer(Self.options(transportWideCC: false))
        #expect(!plain.sdp.contains("transport-wide-cc") && !plain.sdp.contains("transport-cc"))
    }

    @Test func anAnswerEchoesTheOfferedIDAndFeedback() throws {
        // Chromium's offer: transport-cc is extension 3 on both sections; give the video section another id
        // (as a BUNDLE with mixed ids would be invalid, only the echo is checked here).
        var offer = try SessionDescription(parsing: chromiumOffer)
        let index = try #require(offer.media[1].extensions.firstIndex { $0.uri == SDPExtensionMap.transportWideCCURI })
        offer.media[1].extensions[index].id = 9
        let answer = try SessionDescription.answer(to: offer, Self.options(transportWideCC: true))
        #expect(answer.media[0].extensionID(SDPExtensionMap.transportWideCCURI) == 3)
        #expect(answer.media[1].extensionID(SDPExtensionMap.transportWideCCURI) == 9)
        #expect(answer.media[0].extensionID(SDPExtensionMap.midURI) == 4)
        #expect(answer.media[0].codecs.map(\.feedback) == [[.transportWideCC]])
        #expect(answer.media[1].codecs[0].feedback == [.transportWideCC, .fullIntraRequest, .nack,
                                                       .pictureLossIndication])
        #expect(try SessionDescription(parsing: answer.sdp) == answer)

        // An offer without transport-cc gets none back, even when TokKit wants it.
        var bare = try SessionDescription(parsing: chromiumOffer)
        for i in bare.media.indices {
            bare.media[i].extensions.removeAll { $0.uri == SDPExtensionMap.transportWideCCURI }
            for c in bare.media[i].codecs.indices { bare.media[i].codecs[c].feedback.removeAll { $0 == .transportWideCC } }
        }
        let bareAnswer = try SessionDescription.answer(to: bare, Self.options(transportWideCC: true))
        #expect(!bareAnswer.sdp.contains("transport-wide-cc") && !bareAnswer.sdp.contains("transport-cc"))

        // TokKit not wanting it: none in the answer to Chromium's offer.
        let off = try SessionDescription.answer(to: try SessionDescription(parsing: chromiumOffer),
                                                Self.options(transportWideCC: false))
        #expect(!off.sdp.contains("transport-wide-cc") && !off.sdp.contains("transport-cc"))
    }
}
