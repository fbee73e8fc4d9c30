import Synchronization
import Testing
import TokKitICETestSupport
import TokKitMedia
@testable import TokKitPeer
@testable import TokKitStreaming
import TokKitTesting

/// Simulcast over 127.0.0.1: one pipeline encodes three layers from one converted picture and sends each on its own
/// SSRC with its own sequence numbers; a plain receiver (it takes the first SSRC of the offer: the smallest layer)
/// decodes that layer, and its PLI about that layer's SSRC makes a keyframe.
@Suite("VideoSendPipeline simulcast", .serialized) struct VideoSendPipelineSimulcastTests {
    static let settings: VideoEncodeSettings = {
        var s = VideoEncodeSettings(width: 640, height: 360, framesPerSecond: 30, bitrate: 800_000)
        s.simulcastLayers = 3
        return s
    }()

    /// Per SSRC: packets seen and whether their sequence numbers were contiguous (read off the wire before SRTP).
    final class WireCounter: Sendable {
        struct Entry { var packets = 0; var last: UInt16?; var gaps = 0 }
        let entries = Mutex<[UInt32: Entry]>([:])
        func record(ssrc: UInt32, sequence: UInt16) {
            entries.withLock { e in
                var entry = e[ssrc] ?? Entry()
                if let last = entry.last, sequence != last &+ 1 { entry.gaps += 1 }
                entry.last = sequence
                entry.packets += 1
                e[ssrc] = entry
            }
        }
    }

    @Test func threeLayersLeaveOnTheirOwnSSRCsAndTheSmallestDecodesAtItsSize() async throws {
        let layerSSRCs: [UInt32] = [0x5100_0001, 0x5100_0002]
        let peers = try await LoopbackPeerPair.connect(videoSimulcastSSRCs: layerSSRCs)
        defer { peers.close() }
        #expect(peers.publisher.simulcastLayerCount == 3)
        let wire = WireCounter()
        peers.subscriber.setIncomingLoss { ssrc, sequence in
            wire.record(ssrc: ssrc, sequence: sequence)
            return false
        }
        let sender = try VideoSendPipeline(settings: Self.settings, previewRenderer: VideoSendPipelineTests.Preview())
        defer { sender.close() }
        let renderer = CountingRenderer(width: 160, height: 90)
        let receiver = VideoReceivePipeline(peer: peers.subscriber, renderer: renderer)
        defer { receiver.close() }
        try sender.attach(peers.publisher)

        let count = 20
        try await VideoSendPipelineTests.publish(sender, 0..<count, start: MonotonicClock.now(), renderers: [renderer])
        #expect(await eventually(within: .seconds(20)) { renderer.count == count }, "rendered \(renderer.count)")
        let seen = renderer.seen.withLock { $0 }
        #expect(seen.map(\.number) == Array(0..<count), "frames out of order or misidentified")
        #expect(seen.allSatisfy { $0.width == 160 && $0.height == 90 }, "\(seen.map { "\($0.width)x\($0.height)" })")

        // Every layer on the wire, each numbered on its own (the full size, sent last, may still be on its way).
        let main = try #require(peers.publisher.configuration.videoSSRC)
        let ssrcs = [layerSSRCs[0], layerSSRCs[1], main]
        _ = await eventually(within: .seconds(5)) {
            wire.entries.withLock { e in ssrcs.allSatisfy { (e[$0]?.packets ?? 0) >= count } }
        }
        let entries = wire.entries.withLock { $0 }
        let video = ssrcs.map { entries[$0] ?? .init() }
        #expect(video.allSatisfy { $0.packets >= count }, "packets per layer \(video.map(\.packets))")
        #expect(video.allSatisfy { $0.gaps == 0 }, "sequence gaps per layer \(video.map(\.gaps))")
        // The full-size layer is encoded last: its frame may still be on the encode thread.
        #expect(await eventually(within: .seconds(5)) { sender.statistics.framesEncoded == count },
                "frames count the full-size layer once: \(sender.statistics.framesEncoded)")
        let stats = sender.statistics
        #expect(stats.sendErrors == 0)
        #expect(peers.publisher.statistics(.video).packetsSent == UInt64(video.map(\.packets).reduce(0, +)))

        // The receiver's PLI names the smallest layer's SSRC: the pipeline hears it and keyframes.
        func heard() -> Int { sender.statistics.keyframeRequests + sender.statistics.keyframeRequestsIgnored }
        let before = heard()
        try peers.subscriber.requestKeyframe()
        #expect(await eventually(within: .seconds(5)) { heard() > before })
        #expect(peers.publisher.statistics(.video).keyFrameRequestsReceived >= 1)
    }

    @Test func aPeerWithoutSimulcastGetsOnlyTheFullSize() async throws {
        let peers = try await LoopbackPeerPair.connect()
        defer { peers.close() }
        #expect(peers.publisher.simulcastLayerCount == 1)
        let sender = try VideoSendPipeline(settings: Self.settings, previewRenderer: VideoSendPipelineTests.Preview())
        defer { sender.close() }
        let renderer = CountingRenderer(width: 640, height: 360)
        let receiver = VideoReceivePipeline(peer: peers.subscriber, renderer: renderer)
        defer { receiver.close() }
        try sender.attach(peers.publisher)
        let count = 10
        try await VideoSendPipelineTests.publish(sender, 0..<count, start: MonotonicClock.now(), renderers: [renderer])
        let seen = renderer.seen.withLock { $0 }
        #expect(seen.count == count && seen.allSatisfy { $0.width == 640 && $0.height == 360 })
        #expect(sender.statistics.sendErrors == 0)
    }
}

/// While simulcasting, a peer's keyframe request inside the 300 ms limit is kept, and answered once the interval has
/// passed (a media router asks once per layer switch and waits for that keyframe); without simulcast it is dropped.
@Suite("VideoSendPipeline deferred keyframe requests", .serialized) struct VideoSendPipelineDeferredKeyframeTests {
    @Test func aRequestInsideTheIntervalIsAnsweredAfterItWhileSimulcasting() async throws {
        let sender = try VideoSendPipeline(settings: VideoSendPipelineSimulcastTests.settings)
        defer { sender.close() }
        sender.setSimulcasting(true)
        sender.peerRequestedKeyframe()
        #expect(sender.takeKeyframeRequest())
        sender.peerRequestedKeyframe()  // inside the interval: ignored now, kept
        #expect(sender.statistics.keyframeRequestsIgnored == 1)
        #expect(!sender.takeKeyframeRequest(), "not before the interval's end")
        try await Task.sleep(for: VideoSendPipeline.peerKeyframeInterval + .milliseconds(50))
        #expect(sender.takeKeyframeRequest(), "the kept request is answered")
        #expect(!sender.takeKeyframeRequest(), "once")
    }

    @Test func withoutSimulcastARequestInsideTheIntervalIsDropped() async throws {
        let sender = try VideoSendPipeline(settings: VideoSendPipelineSimulcastTests.settings)
        defer { sender.close() }
        sender.peerRequestedKeyframe()
        #expect(sender.takeKeyframeRequest())
        sender.peerRequestedKeyframe()
        try await Task.sleep(for: VideoSendPipeline.peerKeyframeInterval + .milliseconds(50))
        #expect(!sender.takeKeyframeRequest())
    }
}
