import Synchronization
import Testing
import TokKitChromiumSupport
@testable import TokKitPeer
import TokKitRTP
import TokKitSDP

/// TokKit's send-side estimate against headless Chromium over 127.0.0.1 (inside the loopback-only namespace of
/// `bash scripts/test`): Chromium's transport-wide feedback about TokKit's VP8 gives an estimate; losing half of
/// the video on the way out brings it down while Chromium keeps decoding (NACK repairs, every frame a keyframe).
@Suite("Bandwidth estimation with Chromium", .serialized) struct BandwidthEstimationChromiumTests {
    @Test func theEstimateFallsWithLossWhileChromiumKeepsDecoding() async throws {
        try requireLoopbackOnlyNamespace()
        let browser = try await Chromium.launch()
        let call = try await PeerConnectionChromiumTests.Call(browser: browser)
        do {
            let offer = try call.peer.createOffer()
            try call.peer.setRemoteDescription(SessionDescription(parsing: try await call.tk("answer", offer.sdp)))
            call.startTrickle()
            let connected = await PeerConnectionChromiumTests.eventually {
                call.peer.state == .connected && call.chromiumState.withLock { $0 } == "connected"
            }
            try #require(connected, "TokKit \(call.peer.state), Chromium \(call.chromiumState.withLock { $0 })")
            func decoded() async -> Int {
                ((try? await call.stats()) ?? []).first { $0.type == "inbound-rtp" && $0.kind == "video" }?
                    .framesDecoded ?? 0
            }

            // Clean: Chromium decodes and its feedback gives an estimate.
            try await call.sendMedia { await decoded() > 10 && call.peer.bandwidthEstimate != nil }
            let clean = call.peer.transportFeedbackStatistics
            let before = try #require(call.peer.bandwidthEstimate, "no estimate: \(clean)")
            let decodedBefore = await decoded()

            // Half of the video lost on the way out (audio untouched): ~14 % of the transport's packets.
            call.peer.setOutgoingVideoLoss { $0 % 2 == 0 }
            try await call.sendMedia { (call.peer.bandwidthEstimate ?? .max) < before / 2 }
            call.peer.setOutgoingVideoLoss(nil)
            let lossy = call.peer.transportFeedbackStatistics
            let after = try #require(call.peer.bandwidthEstimate)
            #expect(after < before / 2, "estimate \(before) → \(after); \(clean) → \(lossy)")
            #expect(lossy.packetsReportedLostByPeer > clean.packetsReportedLostByPeer, "\(lossy)")
            #expect(call.peer.statistics(.video).packetsRetransmitted > 0, "Chromium NACKed nothing")
            let decodedAfter = await decoded()
            #expect(decodedAfter > decodedBefore + 10, "Chromium decoded \(decodedBefore) → \(decodedAfter)")
            print("BWE with Chromium: estimate \(before) → \(after) b/s; "
                  + "feedback \(lossy.feedbackReceived) messages, "
                  + "\(lossy.packetsReportedLostByPeer) of \(lossy.packetsReportedByPeer) reported lost; "
                  + "Chromium decoded \(decodedBefore) → \(decodedAfter)")
        } catch {
            await call.close()
            throw error
        }
        await call.close()
    }
}
