import Synchronization
import Testing
@testable import TokKitPeer
import TokKitTesting
import TokKitRTP
import TokKitSDP

/// The transport-wide sequence number on our own RTP, and the send-side estimate from the peer's feedback, between
/// two peer connections over 127.0.0.1.
@Suite("PeerConnection bandwidth estimation") struct PeerConnectionBandwidthEstimationTests {
    /// Records the transport-wide sequence number (extension `id`) of every packet received, in order.
    final class SequenceSink: Sendable {
        let id: UInt8
        let sequences = Mutex<[UInt16?]>([])
        init(id: UInt8) { self.id = id }
        var handler: PeerConnection.RTPHandler {
            { [self] packet in
                let value = packet.extensions.value(id: id)
                let sequence = value.flatMap { $0.count == 2 ? UInt16($0[0]) << 8 | UInt16($0[1]) : nil }
                sequences.withLock { $0.append(sequence) }
            }
        }
    }

    static func connectedPair(offerer: PeerConfiguration, answerer: PeerConfiguration,
                              editAnswer: (inout SessionDescription) -> Void = { _ in })
        async throws -> (PeerConnection, PeerConnection, [Task<Void, Never>]) {
        let a = try PeerConnection(configuration: offerer), b = try PeerConnection(configuration: answerer)
        let pumps = try InMemorySignaling.negotiate(a, b, editAnswer: editAnswer)
        let connected = await PeerConnectionTests.poll { a.state == .connected && b.state == .connected }
        try #require(connected, "offerer \(a.state), answerer \(b.state)")
        return (a, b, pumps)
    }

    /// Sends `count` audio and video packets alternately from `peer`.
    static func sendAlternately(_ peer: PeerConnection, count: Int) throws {
        let payload = [UInt8](repeating: 0x5A, count: 200)
        try payload.withUnsafeBytes { p in
            for i in 0 ..< count {
                try peer.sendRTP(.audio, payload: p, timestamp: UInt32(i) * 960)
                try peer.sendRTP(.video, payload: p, timestamp: UInt32(i) * 3000, marker: true)
            }
        }
    }

    @Test func everyPacketOfBothSectionsCarriesTheNextTransportSequenceNumber() async throws {
        let (offerer, answerer, pumps) = try await Self.connectedPair(
            offerer: PeerConfiguration(rtcpInterval: nil), answerer: PeerConfiguration(rtcpInterval: nil))
        let id = try #require(offerer.transportFeedbackStatistics.extensionID)
        let audio = SequenceSink(id: id), video = SequenceSink(id: id)
        answerer.setReceiveHandler(.audio, audio.handler)
        answerer.setReceiveHandler(.video, video.handler)
        try Self.sendAlternately(offerer, count: 40)
        let all = await PeerConnectionTests.poll(.seconds(20)) {
            audio.sequences.withLock { $0.count } == 40 && video.sequences.withLock { $0.count } == 40
        }
        #expect(all)
        let a = audio.sequences.withLock { $0 }, v = video.sequences.withLock { $0 }
        #expect(!a.contains(nil) && !v.contains(nil), "a packet without the extension")
        // One counter for the transport: audio i gets 1 + 2i, video i gets 2 + 2i.
        #expect(a.compactMap { $0 } == (0 ..< 40).map { 1 + 2 * UInt16($0) })
        #expect(v.compactMap { $0 } == (0 ..< 40).map { 2 + 2 * UInt16($0) })
        #expect(offerer.transportFeedbackStatistics.packetsStamped == 80)
        // The answerer recorded them (its feedback recorder reads the same extension).
        #expect(await PeerConnectionTests.poll(.seconds(20)) {
            answerer.transportFeedbackStatistics.packetsRecorded == 80
        })
        offerer.close()
        answerer.close()
        for p in pumps { await p.value }
    }

    @Test func theNegotiatedIdIsUsedAndNothingIsStampedWithoutTransportCC() async throws {
        // The answer moves the extension to id 7: the offerer stamps under 7.
        let (offerer, answerer, pumps) = try await Self.connectedPair(
            offerer: PeerConfiguration(rtcpInterval: nil), answerer: PeerConfiguration(rtcpInterval: nil)) { answer in
            for m in answer.media.indices {
                for e in answer.media[m].extensions.indices
                where answer.media[m].extensions[e].uri == SDPExtensionMap.transportWideCCURI {
                    answer.media[m].extensions[e].id = 7
                }
            }
        }
        #expect(offerer.transportFeedbackStatistics.extensionID == 7)
        let moved = SequenceSink(id: 7), old = SequenceSink(id: 3)
        answerer.setReceiveHandler(.video, moved.handler)
        answerer.setReceiveHandler(.audio, old.handler)
        try Self.sendAlternately(offerer, count: 10)
        #expect(await PeerConnectionTests.poll(.seconds(20)) {
            moved.sequences.withLock { $0.count } == 10 && old.sequences.withLock { $0.count } == 10
        })
        #expect(moved.sequences.withLock { $0 }.allSatisfy { $0 != nil })
        #expect(old.sequences.withLock { $0 }.allSatisfy { $0 == nil }, "stamped under the offered id")
        offerer.close()
        answerer.close()
        for p in pumps { await p.value }

        // Not negotiated (the offerer does not want transport-cc): no extension at all.
        let (plain, receiver, pumps2) = try await Self.connectedPair(
            offerer: PeerConfiguration(rtcpInterval: nil, transportFeedbackInterval: nil),
            answerer: PeerConfiguration(rtcpInterval: nil))
        let extensionForms = Mutex<[Bool]>([])
        receiver.setReceiveHandler(.video) { packet in
            let has = packet.extensionForm != nil
            extensionForms.withLock { $0.append(has) }
        }
        try Self.sendAlternately(plain, count: 10)
        #expect(await PeerConnectionTests.poll(.seconds(20)) { extensionForms.withLock { $0.count } == 10 })
        #expect(extensionForms.withLock { $0 }.allSatisfy { !$0 })
        #expect(plain.transportFeedbackStatistics.packetsStamped == 0)
        #expect(plain.bandwidthEstimate == nil)
        plain.close()
        receiver.close()
        for p in pumps2 { await p.value }
    }

    @Test func aRetransmissionGetsANewTransportSequenceNumber() async throws {
        let (offerer, answerer, pumps) = try await Self.connectedPair(
            offerer: PeerConfiguration(rtcpInterval: nil), answerer: PeerConfiguration(rtcpInterval: nil))
        let id = try #require(offerer.transportFeedbackStatistics.extensionID)
        // (RTP sequence number, transport-wide sequence number) of every video packet the answerer gets.
        let received = Mutex<[(rtp: UInt16, transport: UInt16?)]>([])
        answerer.setReceiveHandler(.video) { packet in
            let value = packet.extensions.value(id: id)
            let transport = value.flatMap { $0.count == 2 ? UInt16($0[0]) << 8 | UInt16($0[1]) : nil }
            let rtp = packet.sequenceNumber
            received.withLock { $0.append((rtp, transport)) }
        }
        // Three of 30 packets are "lost" on the way out; the answerer NACKs them and they are resent.
        let first = Mutex<UInt16?>(nil)
        offerer.setOutgoingVideoLoss { sequence in
            let base = first.withLock { f in f ?? { f = sequence; return sequence }() }
            let i = sequence &- base
            return i == 5 || i == 15 || i == 25
        }
        let payload = [UInt8](repeating: 1, count: 300)
        try payload.withUnsafeBytes { p in
            for i in 0 ..< 30 { try offerer.sendRTP(.video, payload: p, timestamp: UInt32(i) * 3000, marker: true) }
        }
        let all = await PeerConnectionTests.poll(.seconds(20)) {
            Set(received.withLock { $0 }.map(\.rtp)).count == 30
        }
        offerer.setOutgoingVideoLoss(nil)
        #expect(all, "got \(received.withLock { $0 }.count) packets")
        let got = received.withLock { $0 }
        let transport = got.compactMap(\.transport)
        #expect(transport.count == got.count, "a packet without the transport-wide number")
        #expect(Set(transport).count == transport.count, "a transport-wide number was used twice")
        let resent = offerer.statistics(.video).packetsRetransmitted
        #expect(resent >= 3)
        // Every packet put on the wire got a number: 30 originals (the 3 lost ones included) + retransmissions.
        #expect(offerer.transportFeedbackStatistics.packetsStamped == 30 + Int(resent))
        // The i-th original got number i + 1 (only video is sent, numbers start at 1); its resend (which may go
        // out before the last originals: loopback NACKs are fast) carries a later number, not the stale one.
        let base = try #require(first.withLock { $0 })
        let resends = got.filter { [5, 15, 25].contains($0.rtp &- base) }
        #expect(resends.count >= 3, "\(resends)")
        #expect(resends.allSatisfy { ($0.transport ?? 0) > ($0.rtp &- base) + 1 }, "\(resends)")
        offerer.close()
        answerer.close()
        for p in pumps { await p.value }
    }

    /// Sends 1000-byte video packets at about 800 kb/s for `duration` (bounded by a packet count too).
    static func sendVideo(_ peer: PeerConnection, for duration: Duration, from start: Int) async throws -> Int {
        let payload = [UInt8](repeating: 0x33, count: 1000)
        let deadline = ContinuousClock.now + duration
        var i = start
        for _ in 0 ..< 10_000 where ContinuousClock.now < deadline {
            for _ in 0 ..< 10 {
                try payload.withUnsafeBytes { try peer.sendRTP(.video, payload: $0, timestamp: UInt32(i) * 3000) }
                i += 1
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return i
    }

    @Test func feedbackGivesASaneEstimateThatLossBringsDown() async throws {
        var config = PeerConfiguration(rtcpInterval: .milliseconds(500))
        config.bandwidthEstimateBounds = 50_000 ... 2_000_000
        let (offerer, answerer, pumps) = try await Self.connectedPair(offerer: config,
                                                                       answerer: PeerConfiguration(rtcpInterval: nil))
        let reports = Mutex<[UInt64]>([])
        offerer.setFeedbackHandler(.video) { feedback in
            if case .sendSideEstimatedBitrate(let bps) = feedback { reports.withLock { $0.append(bps) } }
        }
        var sent = try await Self.sendVideo(offerer, for: .seconds(2), from: 0)
        let clean = offerer.transportFeedbackStatistics
        let before = try #require(offerer.bandwidthEstimate, "no estimate after 2 s: \(clean)")
        #expect(clean.feedbackReceived > 5 && clean.packetsReportedByPeer > 0, "\(clean)")
        #expect(clean.estimatedBitrate == before)
        #expect((50_000 ... 2_000_000).contains(before))
        // No loss on loopback: nothing pulled the estimate down from its start at the upper bound by more than
        // the delay-based controller's one step (0.85 × the received rate of ~800 kb/s) could.
        #expect(before >= 600_000, "\(clean)")
        #expect(reports.withLock { $0.first } != nil, "the video feedback handler heard no estimate")

        // 40 % of the video lost on the way out (kept for NACK, not sent): with the retransmissions, which carry
        // transport sequence numbers of their own, over 25 % of what is reported: the fast decrease.
        offerer.setOutgoingVideoLoss { sequence in sequence % 10 < 4 }
        sent = try await Self.sendVideo(offerer, for: .seconds(3), from: sent)
        offerer.setOutgoingVideoLoss(nil)
        let lossy = offerer.transportFeedbackStatistics
        let after = try #require(offerer.bandwidthEstimate)
        #expect(lossy.packetsReportedLostByPeer > clean.packetsReportedLostByPeer)
        #expect(after < before / 2, "estimate \(before) → \(after) with 40 % loss; \(lossy)")
        // While retransmissions go out, the video's share is less than the estimate's 0.96 (no audio here: all of it
        // but the video's packet headers and what the retransmissions take, at most half).
        let lossyReport = try #require(reports.withLock { $0.last })
        let lossyShare = Double(after) * TransportCongestionControl.videoPayloadShare
        #expect(Double(lossyReport) < lossyShare * 0.99, "\(lossyReport) vs \(after)")
        #expect(Double(lossyReport) > lossyShare * (1 - TransportCongestionControl.maximumRetransmissionShare) * 0.99)
        // 2 s without loss: the receiver's NACKs for the last losses end 580 ms after them, the retransmissions have
        // left the meter's last second, and the share is the estimate's 0.96 again, to within the 1 % reporting step.
        sent = try await Self.sendVideo(offerer, for: .seconds(2), from: sent)
        let lastReport = try #require(reports.withLock { $0.last })
        let clear = try #require(offerer.bandwidthEstimate)
        let share = Double(clear) * TransportCongestionControl.videoPayloadShare
        #expect(abs(share - Double(lastReport)) < 0.01 * Double(lastReport), "\(lastReport) vs \(clear)")
        offerer.close()
        answerer.close()
        for p in pumps { await p.value }
        _ = sent
    }
}
