import Synchronization
import Testing
import TokKitTesting

@testable import TokKit

extension LiveServer {
    /// Statistics delivered once a second to the publisher's and the subscriber's event streams (and delegates),
    /// with each subscription's network figures and the quality scores.
    @Suite struct SessionStatisticsTests {
        @Test func publisherAndSubscriberGetStatisticsEverySecond() async throws {
            try await MediaTestKit.useTone()
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let p = try await MediaTestKit.pair(server)
            let received = StreamRecorder(p.subscriber.events, where: \.isStatistics)
            let sent = StreamRecorder(p.publisher.events, where: \.isStatistics)
            #expect(await eventually(timeout: .seconds(10)) { received.all.count >= 3 && sent.all.count >= 3 })

            guard case .statisticsUpdated(let last) = received.all.last else { Issue.record("no statistics"); return }
            #expect(last.video.framesDecoded > 0 && last.videoTrack.packetsReceived > 0, "\(last)")
            #expect(last.audioTrack.packetsReceived > 0)
            #expect(last.video.totalFramesDuration > .zero && last.video.freezeCount >= 0)
            // A clean loopback: audio scores near the top; video as its bitrate says (the test pattern is nearly
            // still, so it may sit below the 30 kb/s where the score starts).
            #expect(last.audioQualityScore > 4, "\(last.audioQualityScore)")
            #expect(last.video.bitrate > 0 && last.videoQualityScore == NetworkQuality.videoScore(
                bitrate: last.video.bitrate, width: last.video.width, height: last.video.height))
            #expect(last.candidatePair != nil)
            // One second apart, more or less.
            let stamps = received.all.compactMap { if case .statisticsUpdated(let s) = $0 { s.timestamp } else { nil } }
            #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $1 - $0 > 0.5 && $1 - $0 < 3 }, "\(stamps)")

            guard case .statisticsUpdated(let out) = sent.all.last else { Issue.record("no statistics"); return }
            #expect(out.video.framesEncoded > 0)
            let subscription = try #require(out.subscriptions.first)
            #expect(out.subscriptions.count == 1)
            #expect(subscription.subscriberID == p.subscriber.subscriberID)
            #expect(subscription.connectionID == p.b.connection?.connectionID)
            #expect(subscription.videoTrack.packetsSent > 0 && subscription.audioTrack.packetsSent > 0)
            #expect(await eventually {
                p.publisher.statistics.subscriptions.first?.videoTrack.roundTripTime != nil
            }, "the subscriber's reception reports give the round-trip time")
            #expect(subscription.audioQualityScore > 4)

            // The delegate route: a delegate adopting PublisherStatisticsDelegate gets them too.
            let counter = StatisticsCounter()
            p.publisher.delegate = counter
            #expect(await eventually(timeout: .seconds(5)) { counter.calls.withLock { $0 } >= 2 })
            await p.disconnect()
        }
    }
}

/// Counts statistics deliveries.
final class StatisticsCounter: PublisherStatisticsDelegate {
    let calls = Mutex(0)
    func publisher(_ publisher: Publisher, statisticsUpdated statistics: PublisherStatistics) {
        calls.withLock { $0 += 1 }
    }
}
