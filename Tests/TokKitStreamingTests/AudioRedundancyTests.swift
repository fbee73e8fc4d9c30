import Testing
import TokKitICETestSupport
import TokKitMedia
@testable import TokKitPeer
@testable import TokKitStreaming
import TokKitTesting

/// Issue 14, audio under loss: a steady tone (what the network lab sends), which Opus' voice detector does not take
/// for speech, so its in-band FEC carries almost nothing. With RFC 2198 redundancy negotiated every packet carries
/// the one before, and a lost packet is decoded from the next one: recovered, not concealed.
@Suite("Audio redundancy", .serialized) struct AudioRedundancyTests {
    /// A 440 Hz tone through a real peer pair, every fifth packet lost on the way into the subscriber, for `packets`
    /// 20 ms packets played as they arrive; the receiver's statistics and the last 200 ms played.
    static func toneUnderLoss(redundancy: Bool, packets: Int = 150) async throws
        -> (AudioReceiveStatistics, ArraySlice<Int16>, (negotiated: Bool, packetsWithRedundancy: Int)) {
        let peers = try await LoopbackPeerPair.connect(audioRedundancy: redundancy)
        defer { peers.close() }
        let sender = try AudioSendPipeline()
        let receiver = AudioReceivePipeline(peer: peers.subscriber)
        defer { sender.close(); receiver.close() }
        try sender.attach(peers.publisher)
        peers.subscriber.setIncomingLoss { _, sequence in sequence % 5 == 2 }
        var output: [Int16] = []
        var period = [Int16](repeating: 0, count: 480)
        for n in 0..<packets {
            Tone.samples(440, count: 960, offset: n * 960).withUnsafeBufferPointer { sender.write($0, channels: 1) }
            if n % 25 == 24 { try peers.subscriber.sendReports() }  // these peers have no report timer
            // Wait for what was sent and not dropped (a packet at most), then play 20 ms.
            let sent = sender.statistics.packetsEncoded
            _ = await eventually(within: .seconds(5)) { receiver.statistics.packetsReceived >= sent * 4 / 5 - 1 }
            for _ in 0..<2 {
                period.withUnsafeMutableBufferPointer { _ = receiver.read(into: $0) }
                output += period
            }
        }
        return (receiver.statistics, output.suffix(9_600), peers.publisher.audioRedundancySent)
    }

    @Test func lostTonePacketsAreRecoveredFromTheNextPacketsRedundancy() async throws {
        let (s, tail, sent) = try await Self.toneUnderLoss(redundancy: true)
        #expect(sent.negotiated && sent.packetsWithRedundancy >= 140, "\(sent)")
        #expect(s.redundantPacketsReceived == s.packetsReceived && s.malformedRedundantPackets == 0, "\(s)")
        // 30 of 150 lost; the last one's copy may not have arrived yet when the run ends.
        let lost = s.packetsRecovered + s.packetsConcealed
        #expect(lost >= 25, "\(s)")
        #expect(s.packetsRecoveredFromRedundancy >= lost - 2 && s.packetsConcealed <= 2, "\(s)")
        #expect(Tone.dominant(tail) == 440, "dominant \(Tone.dominant(tail)) Hz")
        #expect(tail.map { abs(Int($0)) }.max() ?? 0 > 4_000, "the tone lost most of its level")
    }

    /// The same without redundancy: the FEC recovers few of the tone's losses (why redundancy is negotiated).
    @Test func withoutRedundancyMostLostTonePacketsAreConcealed() async throws {
        let (s, _, sent) = try await Self.toneUnderLoss(redundancy: false)
        #expect(!sent.negotiated && sent.packetsWithRedundancy == 0)
        #expect(s.redundantPacketsReceived == 0 && s.packetsRecoveredFromRedundancy == 0, "\(s)")
        // 30 of 150 lost; an underrun may take one or two losses' place (the receiver plays as packets arrive).
        #expect(s.packetsRecovered + s.packetsConcealed >= 20, "\(s)")
        #expect(s.packetsConcealed > s.packetsRecovered, "\(s)")
    }
}
