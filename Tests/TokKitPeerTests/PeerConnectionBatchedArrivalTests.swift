import Glibc
import Synchronization
import Testing
@testable import TokKitPeer
import TokKitICE
import TokKitTesting
import TokKitRTP

/// A receiver whose ICE agent batches its reads (``ICEConfiguration/receiveBatching``) records each packet's arrival
/// from the kernel's receive timestamp, not from when the batch was read (issue 16).
@Suite("PeerConnection arrival times under receive batching") struct PeerConnectionBatchedArrivalTests {
    /// RFC 3550 A.8 interarrival jitter, in seconds, of packets with RTP `timestamps` (48 kHz) that arrived at
    /// `arrivals` (nanoseconds).
    static func jitter(timestamps: [UInt32], arrivals: [UInt64]) -> Double {
        var j = 0.0
        for i in timestamps.indices.dropFirst() {
            let transit = Double(Int64(arrivals[i]) - Int64(arrivals[i - 1])) / 1e9
                - Double(Int64(timestamps[i]) - Int64(timestamps[i - 1])) / 48_000
            j += (abs(transit) - j) / 16
        }
        return j
    }

    /// 200 audio packets 5 ms apart (RTP timestamps as far apart) to an answerer that batches every 40 ms: its handler
    /// sees them several at a time (read at each wake-up: libnice's own 20 ms timer, while it runs, or the end of the
    /// 40 ms sleep), so the jitter of the handler's own times is several ms, while the receive statistics, fed the
    /// kernel's stamps, see only the sender's scheduling noise: under half of it.
    @Test func receiveJitterIsTheNetworksNotTheBatchings() async throws {
        var answering = PeerConfiguration(rtcpInterval: nil)
        answering.ice.receiveBatching = .milliseconds(40)
        let (offerer, answerer, pumps) = try await PeerConnectionBandwidthEstimationTests.connectedPair(
            offerer: PeerConfiguration(rtcpInterval: nil), answerer: answering)
        let seen = Mutex<[(timestamp: UInt32, handled: UInt64)]>([])
        answerer.setReceiveHandler(.audio) { packet in
            var ts = timespec()
            clock_gettime(CLOCK_MONOTONIC, &ts)
            let handled = UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
            let timestamp = packet.timestamp
            seen.withLock { if $0.count < 1_000 { $0.append((timestamp, handled)) } }
        }
        // libnice's check timer ticks every 20 ms for a while after connecting, waking the thread as often.
        try await Task.sleep(for: .seconds(3))
        let payload = [UInt8](repeating: 0x5A, count: 100)
        let start = ContinuousClock.now
        for i in 0 ..< 200 {
            try await Task.sleep(until: start + .milliseconds(5 * i), clock: .continuous)
            try payload.withUnsafeBytes { try offerer.sendRTP(.audio, payload: $0, timestamp: UInt32(i) * 240) }
        }
        #expect(await PeerConnectionTests.poll(.seconds(20)) { seen.withLock { $0.count } == 200 }, "all arrive")
        let got = seen.withLock { $0 }
        let handledJitter = Self.jitter(timestamps: got.map(\.timestamp), arrivals: got.map(\.handled))
        let recorded = answerer.statistics(.audio).jitter
        print("batched audio: jitter \(recorded * 1000) ms recorded, \(handledJitter * 1000) ms by the handler's clock;",
              answerer.iceReceiveStatistics.map { "\($0)" } ?? "-")
        #expect(handledJitter > 0.005, "the handler saw the batching (\(handledJitter * 1000) ms)")
        #expect(recorded < handledJitter / 2, "recorded \(recorded * 1000) ms vs \(handledJitter * 1000) ms")
        offerer.close()
        answerer.close()
        for p in pumps { await p.value }
    }
    /// A batching receiver still gets lost video back through NACK: 150 packets 5 ms apart (30 frames a second, 5
    /// packets each), every tenth lost on the way out; each gap is NACKed when the packet after it is read (up to a
    /// batching interval late) and the retransmission read at the next wake-up. Every packet arrives; the delay from
    /// a lost packet's send to its retransmission's delivery is printed (the recorder's VP8 assembler waits 200 ms of
    /// RTP time for a missing packet).
    @Test func lostVideoComesBackThroughNACK() async throws {
        var answering = PeerConfiguration(rtcpInterval: .seconds(1))
        answering.ice.receiveBatching = .milliseconds(40)
        let (offerer, answerer, pumps) = try await PeerConnectionBandwidthEstimationTests.connectedPair(
            offerer: PeerConfiguration(rtcpInterval: .seconds(1)), answerer: answering)
        try await Task.sleep(for: .seconds(3))  // past libnice's 20 ms check timer
        let received = Mutex<[UInt16: ContinuousClock.Instant]>([:])
        answerer.setReceiveHandler(.video) { packet in
            let sequence = packet.sequenceNumber
            received.withLock { if $0[sequence] == nil { $0[sequence] = .now } }
        }
        let first = Mutex<UInt16?>(nil)
        offerer.setOutgoingVideoLoss { sequence in
            let base = first.withLock { f in f ?? { f = sequence; return sequence }() }
            return (sequence &- base) % 10 == 5
        }
        let payload = [UInt8](repeating: 1, count: 300)
        var sent: [ContinuousClock.Instant] = []
        let start = ContinuousClock.now
        for i in 0 ..< 150 {
            try await Task.sleep(until: start + .milliseconds(5 * i), clock: .continuous)
            sent.append(.now)
            try payload.withUnsafeBytes {
                try offerer.sendRTP(.video, payload: $0, timestamp: UInt32(i / 5) * 3000, marker: i % 5 == 4)
            }
        }
        let all = await PeerConnectionTests.poll(.seconds(20)) { received.withLock { $0.count } == 150 }
        offerer.setOutgoingVideoLoss(nil)
        #expect(all, "got \(received.withLock { $0.count }) of 150 packets")
        let base = try #require(first.withLock { $0 })
        let got = received.withLock { $0 }
        var delays: [Duration] = []
        for i in stride(from: 5, to: 150, by: 10) {
            if let at = got[base &+ UInt16(i)] { delays.append(at - sent[i]) }
        }
        #expect(offerer.statistics(.video).packetsRetransmitted >= 15)
        print("batched NACK: \(delays.count) of 15 lost packets recovered; send to delivery",
              "median \(delays.sorted()[delays.count / 2]), max \(delays.max()!);",
              answerer.iceReceiveStatistics.map { "\($0)" } ?? "-")
        offerer.close()
        answerer.close()
        for p in pumps { await p.value }
    }
}
