import Synchronization
import Testing
@testable import TokKitPeer
import TokKitTesting
import TokKitRTP
import TokKitSDP

/// RTCP feedback between two peer connections over 127.0.0.1: PLI to the sender's handler, NACK answered by
/// retransmission.
@Suite("RTCPFeedback") struct RTCPFeedbackTests {
    static func connectedPair() async throws -> (PeerConnection, PeerConnection, [Task<Void, Never>]) {
        let offerer = try PeerConnection(configuration: PeerConfiguration(audioSSRC: 0x1111, videoSSRC: 0x2222,
                                                                          rtcpInterval: nil))
        let answerer = try PeerConnection(configuration: PeerConfiguration(audioSSRC: 0x3333, videoSSRC: 0x4444,
                                                                           rtcpInterval: nil))
        let pumps = try InMemorySignaling.negotiate(offerer, answerer)
        let connected = await PeerConnectionTests.poll { offerer.state == .connected && answerer.state == .connected }
        try #require(connected, "offerer \(offerer.state), answerer \(answerer.state)")
        return (offerer, answerer, pumps)
    }

    @Test func aPictureLossIndicationReachesTheSendersVideoFeedbackHandler() async throws {
        let (offerer, answerer, pumps) = try await Self.connectedPair()
        let received = Mutex<[RTCPFeedback]>([])
        let audio = Atomic<Int>(0)
        offerer.setFeedbackHandler(.video) { feedback in received.withLock { $0.append(feedback) } }
        offerer.setFeedbackHandler(.audio) { _ in audio.add(1, ordering: .relaxed) }

        // The answerer knows the offerer's video SSRC from the offer's a=ssrc, so no media is needed first.
        try answerer.requestKeyframe()
        try answerer.requestKeyframe()
        #expect(await PeerConnectionTests.poll { received.withLock { $0.count } == 2 })
        #expect(received.withLock { $0 } == [.pictureLoss, .pictureLoss])
        #expect(audio.load(ordering: .relaxed) == 0)
        #expect(answerer.statistics(.video).keyFrameRequestsSent == 2)
        #expect(offerer.statistics(.video).keyFrameRequestsReceived == 2)

        offerer.close()
        answerer.close()
        #expect(throws: PeerError.notConnected) { try answerer.requestKeyframe() }
        for p in pumps { await p.value }
    }

    @Test func newFullIntraRequestsAndREMBReachTheHandlerRepeatsAndOtherSSRCsDoNot() async throws {
        let (offerer, answerer, pumps) = try await Self.connectedPair()
        let received = Mutex<[RTCPFeedback]>([])
        offerer.setFeedbackHandler(.video) { feedback in received.withLock { $0.append(feedback) } }
        func deliver(_ packets: [RTCPPacket]) throws {
            let bytes = try RTCPCompoundPacket(packets: packets).serialized()
            bytes.withUnsafeBytes { offerer.receiveRTCP($0) }
        }
        let fir = { (ssrc: UInt32, seq: UInt8) in
            RTCPPacket.fullIntraRequest(RTCPFullIntraRequest(senderSSRC: 0x4444, entries: [.init(ssrc: ssrc,
                                                                                          sequenceNumber: seq)]))
        }
        try deliver([fir(0x2222, 1)])
        try deliver([fir(0x2222, 1)])  // a repeat (RFC 5104 §4.3.1.2): no new key frame
        try deliver([fir(0x9999, 2)])  // someone else's stream
        try deliver([fir(0x2222, 2),
                     .receiverEstimatedMaximumBitrate(.init(senderSSRC: 0x4444, bitrate: 750_000, ssrcs: [0x2222])),
                     .receiverEstimatedMaximumBitrate(.init(senderSSRC: 0x4444, bitrate: 1, ssrcs: [0x9999])),
                     .pictureLossIndication(.init(senderSSRC: 0x4444, mediaSSRC: 0x9999))])
        #expect(received.withLock { $0 } == [.fullIntraRequest, .fullIntraRequest,
                                             .receiverEstimatedMaximumBitrate(750_000)])
        #expect(offerer.statistics(.video).keyFrameRequestsReceived == 2)
        // A NACK for packets never sent retransmits nothing.
        try deliver([.genericNACK(RTCPGenericNACK(senderSSRC: 0x4444, mediaSSRC: 0x2222,
                                                  lostSequenceNumbers: [1, 2, 3]))])
        #expect(offerer.statistics(.video).nacksReceived == 1 && offerer.statistics(.video).packetsRetransmitted == 0)
        offerer.close()
        answerer.close()
        for p in pumps { await p.value }
    }

    @Test func aPacketThatDoesNotDecodeIsSkippedAndTheRestOfItsCompoundStillActs() async throws {
        let (offerer, answerer, pumps) = try await Self.connectedPair()
        let received = Mutex<[RTCPFeedback]>([])
        offerer.setFeedbackHandler(.video) { feedback in received.withLock { $0.append(feedback) } }
        // Transport-wide feedback whose only chunk uses the reserved status symbol 3 (a valid length: the chain of
        // the compound is fine), then a REMB for the offerer's video.
        let badFeedback: [UInt8] = [0x8F, 0xCD, 0x00, 0x05, 0, 0, 0x44, 0x44, 0, 0, 0x22, 0x22,
                                    0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x01, 0x00, 0x60, 0x01, 0x00, 0x00]
        let remb = try RTCPCompoundPacket(packets: [
            .receiverEstimatedMaximumBitrate(.init(senderSSRC: 0x4444, bitrate: 640_000, ssrcs: [0x2222])),
        ]).serialized()
        (badFeedback + remb).withUnsafeBytes { offerer.receiveRTCP($0) }
        #expect(received.withLock { $0 } == [.receiverEstimatedMaximumBitrate(640_000)])
        #expect(offerer.transportFeedbackStatistics.feedbackReceived == 0)
        // A chain that does not add up (the REMB cut short) is dropped whole: the first packet does not act either.
        let pli = try RTCPCompoundPacket(packets: [.pictureLossIndication(.init(senderSSRC: 0x4444, mediaSSRC: 0x2222))])
            .serialized()
        (pli + remb.dropLast(4)).withUnsafeBytes { offerer.receiveRTCP($0) }
        (pli + remb).withUnsafeBytes { offerer.receiveRTCP($0) }
        #expect(received.withLock { $0 } == [.receiverEstimatedMaximumBitrate(640_000), .pictureLoss,
                                             .receiverEstimatedMaximumBitrate(640_000)])
        offerer.close()
        answerer.close()
        for p in pumps { await p.value }
    }

    @Test func droppedVideoPacketsAreNACKedAndRetransmittedUntilEverySequenceNumberArrived() async throws {
        let (offerer, answerer, pumps) = try await Self.connectedPair()
        let count = 200
        let sent = Atomic<Int>(0)
        // Lose every 10th packet of the first 190 (so the last ones reveal every gap).
        offerer.setOutgoingVideoLoss { _ in
            let index = sent.add(1, ordering: .relaxed).oldValue
            return index % 10 == 5 && index < 190
        }
        let sequenceNumbers = Mutex<Set<UInt16>>([])
        let corrupt = Atomic<Int>(0)
        answerer.setReceiveHandler(.video) { packet in
            let seq = packet.sequenceNumber
            // The payload names its own packet: a retransmission must carry the original bytes.
            let payload = packet.payload
            if payload.count != 100 || payload[0] != UInt8(truncatingIfNeeded: packet.timestamp / 3000) {
                corrupt.add(1, ordering: .relaxed)
            }
            sequenceNumbers.withLock { _ = $0.insert(seq) }
        }
        for i in 0..<count {
            let payload = [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: 100)
            try payload.withUnsafeBytes { try offerer.sendRTP(.video, payload: $0, timestamp: UInt32(i) * 3000) }
        }
        #expect(await PeerConnectionTests.poll { sequenceNumbers.withLock { $0.count } == count },
                "received \(sequenceNumbers.withLock { $0.count }) of \(count)")
        #expect(corrupt.load(ordering: .relaxed) == 0)
        let sender = offerer.statistics(.video), receiver = answerer.statistics(.video)
        #expect(sender.packetsRetransmitted >= 19, "\(sender)")  // 19 lost; a retry may resend one twice
        #expect(sender.nacksReceived >= 1 && receiver.nacksSent >= 1)
        offerer.close()
        answerer.close()
        for p in pumps { await p.value }
    }
}
