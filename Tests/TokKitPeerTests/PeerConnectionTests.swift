import Foundation
import Synchronization
import Testing
import TokKitPeer
import TokKitRTP
import TokKitSDP
import TokKitTesting

/// Two peer connections in one process over 127.0.0.1, signalling passed by hand.
@Suite("PeerConnection") struct PeerConnectionTests {
    /// Polls `condition` every 5 ms until true or `timeout` passes. Generous: in a full parallel run other suites
    /// hold the 2-thread cooperative pool for many seconds at start-up (worse inside `scripts/test`'s namespace).
    static func poll(_ timeout: Duration = .seconds(60), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }

    static func networkThreads() -> Set<String> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return Set(tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
    }

    /// Counts packets and checks payloads of one section.
    final class Sink: Sendable {
        let packets = Atomic<Int>(0)
        let badPayloads = Atomic<Int>(0)
        let payloadTypes = Mutex<Set<UInt8>>([])
        let expected: UInt8

        init(expected: UInt8) { self.expected = expected }

        var handler: PeerConnection.RTPHandler {
            { [self] packet in
                packets.add(1, ordering: .relaxed)
                if packet.payload.contains(where: { $0 != expected }) { badPayloads.add(1, ordering: .relaxed) }
                let pt = packet.payloadType
                payloadTypes.withLock { _ = $0.insert(pt) }
            }
        }
    }

    @Test func negotiatesExchangesMediaBothWaysAndComputesStatistics() async throws {
        let offerer = try PeerConnection(configuration: PeerConfiguration(audioSSRC: 0x1111, videoSSRC: 0x2222,
                                                                          rtcpInterval: nil))
        let answerer = try PeerConnection(configuration: PeerConfiguration(audioSSRC: 0x3333, videoSSRC: 0x4444,
                                                                           rtcpInterval: nil))
        let sinks = (oa: Sink(expected: 0xA1), ov: Sink(expected: 0xB1), aa: Sink(expected: 0xA2),
                     av: Sink(expected: 0xB2))
        offerer.setReceiveHandler(.audio, sinks.oa.handler)
        offerer.setReceiveHandler(.video, sinks.ov.handler)
        answerer.setReceiveHandler(.audio, sinks.aa.handler)
        answerer.setReceiveHandler(.video, sinks.av.handler)

        let pumps = try InMemorySignaling.negotiate(offerer, answerer)
        #expect(await Self.poll { offerer.state == .connected && answerer.state == .connected },
                "offerer \(offerer.state), answerer \(answerer.state)")
        #expect(offerer.srtpProfile != nil)

        let audio = [UInt8](repeating: 0, count: 160), video = [UInt8](repeating: 0, count: 1000)
        let count = 50
        for i in 0..<count {
            let ts = UInt32(i)
            try (audio.map { _ in UInt8(0xA2) }).withUnsafeBytes {
                try offerer.sendRTP(.audio, payload: $0, timestamp: ts * 960)
            }
            try (video.map { _ in UInt8(0xB2) }).withUnsafeBytes {
                try offerer.sendRTP(.video, payload: $0, timestamp: ts * 3000, marker: true)
            }
            try (audio.map { _ in UInt8(0xA1) }).withUnsafeBytes {
                try answerer.sendRTP(.audio, payload: $0, timestamp: ts * 960)
            }
            try (video.map { _ in UInt8(0xB1) }).withUnsafeBytes {
                try answerer.sendRTP(.video, payload: $0, timestamp: ts * 3000)
            }
        }
        let all = [sinks.oa, sinks.ov, sinks.aa, sinks.av]
        #expect(await Self.poll { all.allSatisfy { $0.packets.load(ordering: .relaxed) == count } },
                "received \(all.map { $0.packets.load(ordering: .relaxed) })")
        #expect(all.allSatisfy { $0.badPayloads.load(ordering: .relaxed) == 0 }, "payload crossed sections")
        #expect(sinks.aa.payloadTypes.withLock { $0 } == [SessionDescription.opusPayloadType])
        #expect(sinks.av.payloadTypes.withLock { $0 } == [SessionDescription.vp8PayloadType])

        // Receiver side counts what the sender sent.
        let sentAudio = offerer.statistics(.audio), gotAudio = answerer.statistics(.audio)
        #expect(sentAudio.packetsSent == UInt64(count) && sentAudio.bytesSent == UInt64(count * 160))
        #expect(gotAudio.packetsReceived == UInt64(count) && gotAudio.bytesReceived == UInt64(count * 160))
        #expect(gotAudio.packetsLost == 0)
        #expect(answerer.statistics(.video).bytesReceived == UInt64(count * 1000))

        // SR from the offerer, then the answerer's SR carries report blocks with LSR/DLSR: the offerer gets an RTT.
        try offerer.sendReports()
        #expect(await Self.poll { answerer.statistics(.audio).senderReportsReceived >= 1 })
        try answerer.sendReports()
        #expect(await Self.poll { offerer.statistics(.audio).roundTripTime != nil
                && offerer.statistics(.video).roundTripTime != nil })
        let rtt = try #require(offerer.statistics(.audio).roundTripTime)
        #expect(rtt >= .zero && rtt < .seconds(1), "RTT \(rtt)")
        #expect(offerer.statistics(.audio).receptionReportsReceived >= 1)
        #expect(offerer.statistics(.audio).remotePacketsLost == 0)
        // And the other way round.
        try offerer.sendReports()
        #expect(await Self.poll { answerer.statistics(.video).roundTripTime != nil })

        let threads = [offerer.networkThreadName, answerer.networkThreadName].compactMap { $0 }
        #expect(threads.count == 2 && Self.networkThreads().isSuperset(of: threads))
        offerer.close()
        answerer.close()
        #expect(offerer.state == .closed && answerer.state == .closed)
        // close() joins the threads; the kernel drops a joined thread from /proc/self/task a moment later.
        #expect(await Self.poll(.seconds(2)) { Self.networkThreads().isDisjoint(with: threads) },
                "network threads still alive after close: \(Self.networkThreads())")
        for p in pumps { await p.value }  // the event streams finished
    }

    @Test func wrongFingerprintFailsAndReceivesNothing() async throws {
        let offerer = try PeerConnection(configuration: PeerConfiguration(rtcpInterval: nil))
        let answerer = try PeerConnection(configuration: PeerConfiguration(rtcpInterval: nil))
        let received = Sink(expected: 0)
        offerer.setReceiveHandler(.audio, received.handler)
        let pumps = try InMemorySignaling.negotiate(offerer, answerer) { answer in
            for i in answer.media.indices {
                for j in answer.media[i].transport.fingerprints.indices {
                    answer.media[i].transport.fingerprints[j].digest[0] ^= 0xFF
                }
            }
        }
        #expect(await Self.poll { offerer.state == .failed }, "offerer \(offerer.state)")
        #expect(await Self.poll { answerer.state == .failed || answerer.state == .closed }, "answerer \(answerer.state)")
        let payload = [UInt8](repeating: 0, count: 100)
        #expect(throws: PeerError.notConnected) {
            try payload.withUnsafeBytes { try answerer.sendRTP(.audio, payload: $0, timestamp: 0) }
        }
        #expect(offerer.srtpProfile == nil)
        #expect(received.packets.load(ordering: .relaxed) == 0)
        #expect(offerer.statistics(.audio).packetsReceived == 0)
        offerer.close()
        answerer.close()
        for p in pumps { await p.value }
    }

    @Test func signallingOutOfOrderIsATypedError() throws {
        let peer = try PeerConnection(configuration: PeerConfiguration(rtcpInterval: nil))
        defer { peer.close() }
        let other = try PeerConnection(configuration: PeerConfiguration(rtcpInterval: nil))
        defer { other.close() }
        let offer = try other.createOffer()
        #expect(throws: PeerError.self) { try peer.setRemoteDescription(offer) }
        #expect(throws: PeerError.notConnected) {
            try [UInt8](repeating: 0, count: 10).withUnsafeBytes { try peer.sendRTP(.audio, payload: $0, timestamp: 0) }
        }
        _ = try peer.createAnswer(for: offer)
        #expect(throws: PeerError.self) { _ = try peer.createOffer() }
        #expect(throws: PeerError.payloadTooLarge(5000)) {
            try [UInt8](repeating: 0, count: 5000).withUnsafeBytes { try peer.sendRTP(.audio, payload: $0, timestamp: 0) }
        }
    }
}
