import Testing
@testable import TokKitPeer
import TokKitRTP

/// PLI, FIR and REMB about our streams reach the section they name; our PLIs go out (RFC 4585, RFC 5104).
@Suite struct KeyframeRequestRouterTests {
    static func router() -> KeyframeRequestRouter {
        var router = KeyframeRequestRouter(senderSSRC: 9)
        router.addSender(.audio, ssrc: 0xA)
        router.addSender(.video, ssrc: 0xB)
        return router
    }

    @Test func pictureLossGoesToTheSectionItNames() {
        var unit = Self.router()
        var out = RecordingOutput()
        unit.received(.pictureLossIndication(.init(senderSSRC: 1, mediaSSRC: 0xB)), now: ms(0), output: &out)
        unit.received(.pictureLossIndication(.init(senderSSRC: 1, mediaSSRC: 0xC)), now: ms(0), output: &out)
        #expect(out.notifications == [.init(section: .video, feedback: .pictureLoss)])
        #expect(unit.requestsReceived(.video) == 1 && unit.requestsReceived(.audio) == 0)
    }

    @Test func aRepeatedFullIntraRequestIsActedOnOnce() {
        var unit = Self.router()
        var out = RecordingOutput()
        let fir: (UInt8) -> RTCPPacket = { .fullIntraRequest(.init(senderSSRC: 1, entries: [.init(ssrc: 0xB, sequenceNumber: $0)])) }
        for sequence: UInt8 in [4, 4, 5] { unit.received(fir(sequence), now: ms(0), output: &out) }
        #expect(out.notifications.count == 2 && unit.requestsReceived(.video) == 2)
    }

    @Test func rembCoveringOurVideoIsReported() {
        var unit = Self.router()
        var out = RecordingOutput()
        let remb: ([UInt32]) -> RTCPPacket = { .receiverEstimatedMaximumBitrate(.init(senderSSRC: 1, bitrate: 300_000, ssrcs: $0)) }
        unit.received(remb([0xB]), now: ms(0), output: &out)
        unit.received(remb([0xC]), now: ms(0), output: &out)
        unit.received(remb([]), now: ms(0), output: &out)
        #expect(out.notifications == Array(repeating: .init(section: .video, feedback: .receiverEstimatedMaximumBitrate(300_000)),
                                           count: 2))
    }

    @Test func requestsAKeyframeWithAPictureLossIndication() {
        var unit = Self.router()
        var out = RecordingOutput()
        unit.requestKeyframe(mediaSSRC: 0x77, output: &out)
        #expect(out.rtcp == [[.pictureLossIndication(.init(senderSSRC: 9, mediaSSRC: 0x77))]])
        #expect(unit.requestsSent == 1)
        out.succeeds = false
        unit.requestKeyframe(mediaSSRC: 0x77, output: &out)
        #expect(unit.requestsSent == 1)
    }
}
