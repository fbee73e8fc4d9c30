import Foundation
import Synchronization
import Testing
import TokKitICETestSupport
import TokKitMedia
@testable import TokKitPeer
@testable import TokKitStreaming
import TokKitTesting

/// The video send pipeline's send queue (``PacketSendQueue``) at its limits, with a small queue (the capacity is an
/// internal initialiser parameter): a frame goes in whole or not at all, frames are skipped while it is more than
/// half full, a peer that goes live on a skipped frame still starts with a keyframe, and a detached peer gets none
/// of the packets still queued. Publisher → subscriber over 127.0.0.1.
@Suite("VideoSendPipeline send queue", .serialized) struct VideoSendPipelineSendQueueTests {
    typealias Preview = VideoSendPipelineTests.Preview

    static func pipeline(_ width: Int, _ height: Int, capacity: Int) throws -> VideoSendPipeline {
        try VideoSendPipeline(settings: VideoEncodeSettings(width: width, height: height, framesPerSecond: 30,
                                                            bitrate: 600_000),
                              previewRenderer: Preview(), clockMapping: RTPClockMapping(clockRate: 90_000),
                              sendQueueCapacity: capacity)
    }

    /// Frame `n` of pseudo-random luma and chroma (an LCG seeded by `n`): VP8 cannot compress it, so at 640x480 a
    /// key frame is tens of kilobytes (the test pattern's is under 1 kB).
    static func noise(_ n: Int, width: Int, height: Int) throws -> VideoFrame {
        let frame = try VideoFramePool(capacity: 1).makeFrame(format: .i420(width: width, height: height),
                                                              timestamp: .milliseconds(33 * n))
        var state = UInt64(n) &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        frame.withMutablePlanes { p in
            for k in 0..<3 {
                let rows = k == 0 ? height : height / 2, stride = frame.format.bytesPerRow[k]
                for i in 0 ..< rows * stride {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    p[k].storeBytes(of: UInt8(truncatingIfNeeded: state >> 56), toByteOffset: i, as: UInt8.self)
                }
            }
        }
        return frame
    }

    /// Feeds frame `n` (`size` pixels; the test pattern, or noise) and waits until the encode thread is done with
    /// it (encoded, skipped or dropped: each counts once).
    static func feed(_ sender: VideoSendPipeline, _ n: Int, width: Int, height: Int, noise: Bool = false) async throws {
        func handled(_ s: VideoSendStatistics) -> Int { s.framesEncoded + s.framesDropped }
        let before = handled(sender.statistics)
        sender.consumeFrame(noise ? try Self.noise(n, width: width, height: height)
                                  : try TestPattern.frame(n, width: width, height: height,
                                                          timestamp: .milliseconds(33 * n)))
        let done = await eventually(timeout: .seconds(20)) { handled(sender.statistics) > before }
        try #require(done, "frame \(n) was never handled: \(sender.statistics)")
    }

    /// A 640x480 key frame of noise (tens of kilobytes: more packets than a 3-slot queue has) never goes into the queue:
    /// not one of its packets is sent (a frame cut short by the full queue followed on in sequence numbers, and the
    /// receiver decoded it truncated). Once the frames are small enough to fit, they arrive whole: the receiver
    /// sees no sequence gap (nothing lost, nothing NACKed) and decodes every one. Nothing is paced (no estimate),
    /// so the queue is empty whenever a frame comes: the frame alone does not fit.
    @Test func aFrameThatDoesNotFitIsNotQueuedAtAll() async throws {
        let peers = try await LoopbackPeerPair.connect(transportFeedbackInterval: nil)
        defer { peers.close() }
        let sender = try Self.pipeline(640, 480, capacity: 3)
        defer { sender.close() }
        let renderer = CountingRenderer(width: 64, height: 48)
        let receiver = VideoReceivePipeline(peer: peers.subscriber, renderer: renderer)
        defer { receiver.close() }
        try sender.attach(peers.publisher)

        for n in 0..<5 { try await Self.feed(sender, n, width: 640, height: 480, noise: true) }
        let big = sender.statistics
        print("640x480 into 3 slots: \(big.framesEncoded) encoded, \(big.keyframesEncoded) key, \(big.bytesEncoded) B, "
              + "\(big.sendQueueOverflows) not queued, \(big.packetsSent) packets sent")
        #expect(big.framesEncoded == 5 && big.keyframesEncoded == 5, "each one not queued asks for a keyframe")
        #expect(big.bytesEncoded > 5 * 2 * 1_200, "key frames over two packets each")
        #expect(big.sendQueueOverflows == 5)
        #expect(big.packetsSent == 0 && peers.publisher.statistics(.video).packetsSent == 0,
                "no packet of a frame that did not fit is sent")
        #expect(sender.sendQueue.count == 0)

        // 64x48: one packet a frame; they fit and arrive whole, in sequence.
        try sender.update(VideoEncodeSettings(width: 64, height: 48, framesPerSecond: 30, bitrate: 600_000))
        let count = 20
        for n in 5 ..< 5 + count {
            let rendered = renderer.count
            try await Self.feed(sender, n, width: 640, height: 480)
            #expect(await eventually(timeout: .seconds(20)) { renderer.count > rendered }, "frame \(n) not rendered")
        }
        let small = sender.statistics, got = receiver.statistics, track = peers.subscriber.statistics(.video)
        print("then 64x48: \(small.framesEncoded - 5) encoded, \(got.framesDecoded) decoded, "
              + "\(track.packetsReceived) packets received, \(track.packetsLost) lost, \(track.nacksSent) NACKs")
        #expect(small.sendQueueOverflows == 5 && small.framesEncoded == 5 + count)
        #expect(got.framesDecoded == count && got.decodeErrors == 0)
        #expect(renderer.seen.withLock { $0.map(\.number) } == Array(5 ..< 5 + count))
        #expect(track.packetsLost == 0 && track.nacksSent == 0, "no gap in sequence numbers")
        #expect(Int(track.packetsReceived) == small.packetsSent)
    }

    /// A 4-slot queue paced at the pacer's floor (50 kb/s: an estimate of 10 kb/s) and 64x48 frames (one small
    /// packet each, so their time in the queue stays under ``SendBacklogGate/maximumBacklog``): frames fed every
    /// 2 ms fill it, and once more than half of it (2 slots) is taken frames are skipped for room, before encoding;
    /// none is cut short, every frame encoded is decoded.
    @Test func framesAreSkippedWhileTheQueueIsMoreThanHalfFull() async throws {
        let peers = try await LoopbackPeerPair.connect(transportFeedbackInterval: nil)
        defer { peers.close() }
        let sender = try Self.pipeline(64, 48, capacity: 4)
        defer { sender.close() }
        let renderer = CountingRenderer(width: 64, height: 48)
        let receiver = VideoReceivePipeline(peer: peers.subscriber, renderer: renderer)
        defer { receiver.close() }
        try sender.attach(peers.publisher)
        sender.sendSideEstimatedBitrate(10_000, from: peers.publisher)
        var most = 0
        for n in 0..<60 {
            sender.consumeFrame(try TestPattern.frame(n, width: 64, height: 48, timestamp: .milliseconds(33 * n)))
            most = max(most, sender.sendQueue.count)
            try await Task.sleep(for: .milliseconds(2))
        }
        let settled = await eventually(timeout: .seconds(20)) {
            sender.sendQueue.count == 0 && receiver.statistics.framesDecoded == sender.statistics.framesEncoded
        }
        let sent = sender.statistics, got = receiver.statistics
        print("4-slot queue at 50 kb/s: \(sent.framesEncoded) encoded (\(sent.bytesEncoded) B), "
              + "\(sent.framesSkippedForQueueRoom) skipped for room, \(sent.framesSkippedForBacklog) skipped in all, "
              + "\(sent.framesDropped) dropped, \(got.framesDecoded) decoded, at most \(most) packets queued")
        #expect(settled, "encoded \(sent.framesEncoded), decoded \(got.framesDecoded)")
        #expect(sent.framesSkippedForQueueRoom > 0, "more than 2 of 4 slots taken: frames skipped")
        #expect(most <= 3, "a frame is admitted with at most 2 packets waiting and adds one")
        #expect(sent.sendQueueOverflows == 0 && sent.sendErrors == 0)
        #expect(got.decodeErrors == 0)
    }

    /// A peer that becomes live (connected) on a frame skipped for the queue still starts with a keyframe: the
    /// skip asks for one, and the next frame encoded is one. No receive pipeline (whose PLI would also make one).
    /// The skip must fall on the promotion frame: the test retries (detach, attach again) until it does, 8 times
    /// at most.
    @Test func aNewlyLivePeersKeyframeSurvivesASkippedFrame() async throws {
        let first = try await LoopbackPeerPair.connect(transportFeedbackInterval: nil)
        defer { first.close() }
        let second = try await LoopbackPeerPair.connect(transportFeedbackInterval: nil)
        defer { second.close() }
        let sender = try Self.pipeline(64, 48, capacity: 4)
        defer { sender.close() }
        try sender.attach(first.publisher)
        sender.sendSideEstimatedBitrate(10_000, from: first.publisher)
        var n = 0
        var checked = false
        for attempt in 0..<8 where !checked {
            // Fill the queue past half.
            var full = false
            for _ in 0..<200 where !full {
                try await Self.feed(sender, n, width: 64, height: 48)
                n += 1
                full = sender.sendQueue.count > 2
            }
            try #require(full, "the queue never filled: \(sender.statistics)")
            let before = sender.statistics
            try sender.attach(second.publisher)
            try await Self.feed(sender, n, width: 64, height: 48)
            n += 1
            let promoted = sender.statistics
            guard promoted.framesSkippedForBacklog == before.framesSkippedForBacklog + 1 else {
                print("attempt \(attempt): the promotion frame was encoded (the queue drained meanwhile)")
                sender.detach(second.publisher)
                continue
            }
            #expect(promoted.keyframeRequests == before.keyframeRequests + 1, "the skip asks for the keyframe")
            // The next frame encoded is a keyframe.
            var encoded = promoted
            for _ in 0..<200 where encoded.framesEncoded == promoted.framesEncoded {
                try await Self.feed(sender, n, width: 64, height: 48)
                n += 1
                encoded = sender.statistics
            }
            print("attempt \(attempt): promotion frame skipped; next encoded: \(encoded.framesEncoded - promoted.framesEncoded) "
                  + "frame(s), \(encoded.keyframesEncoded - promoted.keyframesEncoded) key")
            #expect(encoded.framesEncoded == promoted.framesEncoded + 1)
            #expect(encoded.keyframesEncoded == promoted.keyframesEncoded + 1, "the new peer's keyframe was lost")
            #expect(await eventually { second.publisher.statistics(.video).packetsSent > 0 })
            checked = true
        }
        #expect(checked, "no attempt had its promotion frame skipped")
    }

    /// Detaching a peer drops the packets still queued for it: at 10 kb/s (paced at 50 kb/s, each key frame raised
    /// to leave within 250 ms) 640x480 key frames of noise wait in the queue for up to 400 ms; the detached peer
    /// gets none of them (at most the one packet being sent while `detach` ran), the peer still attached all.
    @Test func aDetachedPeerGetsNoneOfThePacketsStillQueued() async throws {
        let leaving = try await LoopbackPeerPair.connect(transportFeedbackInterval: nil)
        defer { leaving.close() }
        let staying = try await LoopbackPeerPair.connect(transportFeedbackInterval: nil)
        defer { staying.close() }
        let sender = try Self.pipeline(640, 480, capacity: 1024)
        defer { sender.close() }
        try sender.attach(leaving.publisher)
        try sender.attach(staying.publisher)
        sender.sendSideEstimatedBitrate(10_000, from: leaving.publisher)
        sender.sendSideEstimatedBitrate(10_000, from: staying.publisher)
        for n in 0..<3 {
            sender.requestKeyframe()
            try await Self.feed(sender, n, width: 640, height: 480, noise: true)
        }
        let queued = sender.sendQueue.count
        sender.detach(leaving.publisher)
        let atDetach = leaving.publisher.statistics(.video).packetsSent
        let stayingAtDetach = staying.publisher.statistics(.video).packetsSent
        try #require(queued > 5, "the queue must hold packets when the peer leaves: \(queued), \(sender.statistics)")
        let drained = await eventually(timeout: .seconds(20)) { sender.sendQueue.count == 0 }
        let after = leaving.publisher.statistics(.video).packetsSent
        let stayingAfter = staying.publisher.statistics(.video).packetsSent
        print("detached with \(queued) packets queued: the detached peer sent \(after - atDetach) after detach, "
              + "the other \(stayingAfter - stayingAtDetach)")
        #expect(drained)
        #expect(after - atDetach <= 1, "queued packets went to a detached peer: \(after - atDetach)")
        #expect(stayingAfter > stayingAtDetach, "the peer still attached gets the queued packets")
        #expect(sender.statistics.sendErrors == 0)
    }
}
