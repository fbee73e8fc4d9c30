import Testing
import TokKitDTLS
@testable import TokKitPeer
import TokKitSDP

/// What an offer/answer agreed, read from the descriptions alone.
@Suite struct NegotiatedMediaTests {
    static let fingerprint = SDPFingerprint(algorithm: "sha-256", digest: Array(repeating: 0xAB, count: 32))

    static func options(audioSSRC: UInt32?, videoSSRC: UInt32?, receives: Bool, transportCC: Bool = true)
        -> SDPLocalDescriptionOptions {
        func media(_ ssrc: UInt32?, _ name: String) -> SDPLocalMedia {
            SDPLocalMedia(track: ssrc.map { .init(streamID: "s", trackID: "s-\(name)", ssrc: $0, cname: "c") },
                          receives: receives)
        }
        return SDPLocalDescriptionOptions(iceUfrag: "ufrag\(audioSSRC ?? 0)", icePassword: "passwordpasswordpassword",
                                          fingerprint: fingerprint, audio: media(audioSSRC, "audio"),
                                          video: media(videoSSRC, "video"), transportWideCC: transportCC, sessionID: 1)
    }

    @Test func aPublisherAndASubscriberAgreeOnDirectionsRolesAndTransportCC() throws {
        // A publisher offers send-only; a subscriber answers receive-only.
        let offer = try SessionDescription.offer(Self.options(audioSSRC: 11, videoSSRC: 22, receives: false))
        let answer = try SessionDescription.answer(to: offer, Self.options(audioSSRC: nil, videoSSRC: nil, receives: true))

        let publisher = try NegotiatedMedia(remote: answer, answer: answer, local: offer, wantsTransportCC: true)
        #expect(Set(publisher.send.keys) == [.audio, .video] && publisher.receive.isEmpty)
        #expect(publisher.send[.video]?.transportSequenceID == publisher.transportWideCCID)
        #expect(publisher.transportWideCCID != nil)
        #expect(publisher.role == .server)  // actpass offered, the answer is active
        #expect(publisher.remoteCredentials.ufrag == "ufrag0")

        let subscriber = try NegotiatedMedia(remote: offer, answer: answer, local: answer, wantsTransportCC: true)
        #expect(subscriber.send.isEmpty && Set(subscriber.receive.keys) == [.audio, .video])
        #expect(subscriber.receive[.audio]?.remoteSSRC == 11 && subscriber.receive[.video]?.remoteSSRC == 22)
        #expect(subscriber.role == .client)

        let without = try NegotiatedMedia(remote: offer, answer: answer, local: answer, wantsTransportCC: false)
        #expect(without.transportWideCCID == nil && without.receive == subscriber.receive)
    }

    @Test func aDescriptionWithoutCredentialsOrFingerprintIsRefused() throws {
        let offer = try SessionDescription.offer(Self.options(audioSSRC: 11, videoSSRC: 22, receives: true))
        let answer = try SessionDescription.answer(to: offer, Self.options(audioSSRC: 33, videoSSRC: 44, receives: true))
        for (line, reason) in [("a=fingerprint:", "missing fingerprint"), ("a=ice-ufrag:", "missing ICE credentials")] {
            let stripped = try SessionDescription(parsing: answer.sdp.split(separator: "\r\n", omittingEmptySubsequences: false)
                .filter { !$0.hasPrefix(line) }.joined(separator: "\r\n"))
            #expect(throws: PeerError.invalidRemoteDescription(reason)) {
                try NegotiatedMedia(remote: stripped, answer: stripped, local: offer, wantsTransportCC: true)
            }
        }
    }

    /// Redundant audio: both ends asked for it, so both know the `red` payload type around Opus' (the media codec
    /// is Opus although the answer lists `red` first); one end not asking leaves it out for both.
    @Test func redundantAudioIsAgreedOnlyWhenBothEndsWantIt() throws {
        func options(_ ssrc: UInt32?, receives: Bool, red: Bool) -> SDPLocalDescriptionOptions {
            var o = Self.options(audioSSRC: ssrc, videoSSRC: ssrc.map { $0 + 1 }, receives: receives)
            o.audioRedundancy = red
            return o
        }
        let offer = try SessionDescription.offer(options(11, receives: false, red: true))
        let answer = try SessionDescription.answer(to: offer, options(nil, receives: true, red: true))
        let publisher = try NegotiatedMedia(remote: answer, answer: answer, local: offer, wantsTransportCC: true)
        #expect(publisher.send[.audio]?.payloadType == 111 && publisher.send[.audio]?.redundancyPayloadType == 63)
        #expect(publisher.send[.video]?.payloadType == 96 && publisher.send[.video]?.redundancyPayloadType == nil)
        let subscriber = try NegotiatedMedia(remote: offer, answer: answer, local: answer, wantsTransportCC: true)
        #expect(subscriber.receive[.audio]?.payloadType == 111)
        #expect(subscriber.receive[.audio]?.redundancyPayloadType == 63)

        let plainAnswer = try SessionDescription.answer(to: offer, options(nil, receives: true, red: false))
        let plain = try NegotiatedMedia(remote: plainAnswer, answer: plainAnswer, local: offer, wantsTransportCC: true)
        #expect(plain.send[.audio]?.payloadType == 111 && plain.send[.audio]?.redundancyPayloadType == nil)
    }
}
