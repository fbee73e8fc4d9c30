import Testing
@testable import TokKitPeer
import TokKitTesting

/// The first RTCP sender report goes out with a section's first packet, not an interval later (a receiver that
/// synchronises our streams, such as an archive, waits for it).
@Suite("First sender report") struct FirstSenderReportTests {
    @Test func theFirstReportFollowsEachSectionsFirstPacketThenTheInterval() async throws {
        // An interval far longer than the test: any report seen here is an early one.
        let offerer = try PeerConnection(configuration: PeerConfiguration(audioSSRC: 0x1111, videoSSRC: 0x2222,
                                                                          rtcpInterval: .seconds(600)))
        let answerer = try PeerConnection(configuration: PeerConfiguration(audioSSRC: 0x3333, videoSSRC: 0x4444,
                                                                           rtcpInterval: nil))
        let pumps = try InMemorySignaling.negotiate(offerer, answerer)
        let connected = await PeerConnectionTests.poll { offerer.state == .connected && answerer.state == .connected }
        try #require(connected, "offerer \(offerer.state), answerer \(answerer.state)")
        #expect(answerer.remoteSenderReport(.audio) == nil, "no report before media")
        offerer.setSendTimestampOrigin(.audio, rtpTimestampAtZero: 7)

        let payload = [UInt8](repeating: 0xAB, count: 40)
        try payload.withUnsafeBytes { p in
            for i in 0..<5 { try offerer.sendRTP(.audio, payload: p, timestamp: 7 &+ UInt32(i) * 960) }
        }
        #expect(await PeerConnectionTests.poll(.seconds(10)) { answerer.remoteSenderReport(.audio) != nil },
                "the first audio packet brings a sender report")
        #expect(offerer.statistics(.audio).senderReportsSent == 1, "once, not per packet")
        try payload.withUnsafeBytes { p in
            for i in 0..<5 { try offerer.sendRTP(.video, payload: p, timestamp: UInt32(i) * 3_000, marker: true) }
        }
        #expect(await PeerConnectionTests.poll(.seconds(10)) { answerer.statistics(.video).senderReportsReceived == 2 })
        // One compound per section's first packet (each carries both sections' SRs), none per later packet.
        #expect(offerer.statistics(.audio).senderReportsSent == 2 && offerer.statistics(.video).senderReportsSent == 2)
        offerer.close()
        answerer.close()
        for p in pumps { await p.value }
    }
}
