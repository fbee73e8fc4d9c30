import Testing
import TokKitSDP

/// Redundant audio (RFC 2198 `red` carrying Opus) in TokKit's offers and answers: offered before Opus when asked
/// for, answered only when both ends want it and the offer's `red` carries the chosen Opus payload type.
@Suite struct SDPOfferAnswerREDTests {
    static func options(red: Bool) -> SDPLocalDescriptionOptions {
        var options = tokkitOptions()
        options.audioRedundancy = red
        return options
    }

    @Test func anOfferListsRedBeforeOpusOnlyWhenAsked() throws {
        let offer = try SessionDescription.offer(Self.options(red: true))
        let audio = try #require(offer.media.first { $0.kind == "audio" })
        #expect(audio.formats == ["63", "111"])
        #expect(audio.codecs.map(\.name) == ["red", "opus"])
        #expect(audio.codecs[0].isRedundantAudio(of: 111))
        let text = offer.sdp
        #expect(text.contains("m=audio 9 UDP/TLS/RTP/SAVPF 63 111\r\n"))
        #expect(text.contains("a=rtpmap:63 red/48000/2\r\n") && text.contains("a=fmtp:63 111/111\r\n"))
        #expect(try SessionDescription(parsing: text) == offer)
        // Video is untouched; without the option, Opus alone.
        #expect(offer.media.first { $0.kind == "video" }?.codecs.map(\.name) == ["VP8"])
        let plain = try SessionDescription.offer(Self.options(red: false))
        #expect(plain.media.first { $0.kind == "audio" }?.codecs.map(\.name) == ["opus"])
    }

    @Test func answersChromiumsRedFirstWhenWantedAndLeavesItOutOtherwise() throws {
        let offer = try SessionDescription(parsing: chromiumOffer)  // opus 111 first, red 63 "111/111" later
        let answer = try SessionDescription.answer(to: offer, Self.options(red: true))
        let audio = try #require(answer.media.first { $0.kind == "audio" })
        #expect(audio.formats == ["63", "111"])
        #expect(audio.codecs.map(\.payloadType) == [63, 111])
        #expect(audio.codecs[0].formatParameters == "111/111")
        let without = try SessionDescription.answer(to: offer, Self.options(red: false))
        #expect(without.media.first { $0.kind == "audio" }?.codecs.map(\.name) == ["opus"])
    }

    @Test func redForAnotherCodecOrRateIsNotAccepted() throws {
        for (rtpmap, fmtp) in [("red/48000/2", "0/0"), ("red/48000/2", "111/0"), ("red/8000", "111/111"),
                               ("red/48000/2", "abc"), ("red/48000/2", "")] {
            var offer = try SessionDescription.offer(Self.options(red: false))
            let i = try #require(offer.media.firstIndex { $0.kind == "audio" })
            let parts = rtpmap.split(separator: "/").map(String.init)
            offer.media[i].codecs.insert(SDPCodec(payloadType: 63, name: parts[0], clockRate: Int(parts[1])!,
                                                  channels: parts.count > 2 ? Int(parts[2]) : nil,
                                                  formatParameters: fmtp.isEmpty ? nil : fmtp), at: 0)
            offer.media[i].formats.insert("63", at: 0)
            let reparsed = try SessionDescription(parsing: offer.sdp)
            let answer = try SessionDescription.answer(to: reparsed, Self.options(red: true))
            #expect(answer.media.first { $0.kind == "audio" }?.codecs.map(\.name) == ["opus"], "\(rtpmap) \(fmtp)")
        }
    }

    @Test func tokkitAnswersItsOwnOffer() throws {
        let offer = try SessionDescription.offer(Self.options(red: true))
        let answer = try SessionDescription.answer(to: SessionDescription(parsing: offer.sdp), Self.options(red: true))
        #expect(answer.media.first { $0.kind == "audio" }?.codecs.map(\.payloadType) == [63, 111])
        // A peer that does not do redundancy answers Opus alone.
        let old = try SessionDescription.answer(to: SessionDescription(parsing: offer.sdp), Self.options(red: false))
        #expect(old.media.first { $0.kind == "audio" }?.codecs.map(\.payloadType) == [111])
    }
}
