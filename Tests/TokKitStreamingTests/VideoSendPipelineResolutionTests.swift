import Synchronization
import Testing
import TokKitICETestSupport
import TokKitMedia
@testable import TokKitPeer
@testable import TokKitStreaming
import TokKitTesting

/// A single 640x480 camera stream on a path estimated far below what the size needs: encoded smaller while the
/// encoder is at its highest quantizer, at full size again once the estimate carries it (``ResolutionAdapter``).
@Suite("VideoSendPipeline resolution", .serialized) struct VideoSendPipelineResolutionTests {
    static let settings = VideoEncodeSettings(width: 640, height: 480, framesPerSecond: 30, bitrate: 1_000_000)
    static let textured = PictureSequence(.textured)

    /// The sizes the subscriber decoded, in order, each once.
    final class Sizes: VideoRender {
        let seen = Mutex<[[Int]]>([])
        func renderVideoFrame(_ frame: VideoFrame) {
            let size = [frame.format.width, frame.format.height]
            seen.withLock { if $0.last != size { $0.append(size) } }
        }
        var all: [[Int]] { seen.withLock { $0 } }
    }

    /// Feeds `count` frames at 30 a second in real time (the adapter's hold is on the monotonic clock): the
    /// textured sequence (camera-like detail), or still colour bars. Stops early once `until` holds.
    static func feed(_ sender: VideoSendPipeline, _ count: Int, textured: Bool, from start: inout Int,
                     until: () -> Bool = { false }) async throws {
        let pool = VideoFramePool(capacity: 2)
        let origin = MonotonicClock.now()
        for n in start ..< start + count {
            let timestamp = origin + .milliseconds(33 * (n - start))
            let frame: VideoFrame
            if textured {
                frame = try pool.makeFrame(format: .i420(width: 640, height: 480), timestamp: timestamp)
                frame.withMutablePlanes { planes in
                    Self.textured.withFrame(n) { y, u, v in
                        for (k, source) in [y, u, v].enumerated() { planes[k].copyMemory(from: source) }
                    }
                }
            } else {
                frame = try TestPattern.frame(0, width: 640, height: 480, timestamp: timestamp)
            }
            sender.consumeFrame(frame)
            try await Task.sleep(until: .now + .milliseconds(33))
            if until() { start = n + 1; return }
        }
        start += count
    }

    @Test func aDetailedPictureIsEncodedSmallerOnASlowPathAndAtFullSizeAgainAfter() async throws {
        let peers = try await LoopbackPeerPair.connect(transportFeedbackInterval: nil)  // only the estimates given here
        defer { peers.close() }
        let sender = try VideoSendPipeline(settings: Self.settings, previewRenderer: VideoSendPipelineTests.Preview())
        defer { sender.close() }
        let sizes = Sizes()
        let receiver = VideoReceivePipeline(peer: peers.subscriber, renderer: sizes)
        defer { receiver.close() }
        try sender.attach(peers.publisher)
        var frame = 0
        try await Self.feed(sender, 10, textured: true, from: &frame)
        #expect(sender.statistics.encodedWidth == 640 && sender.statistics.encodedHeight == 480)

        // 100 kb/s: 640x480 of this picture does not go under ~290 kb/s; 320x240's floor is 69 kb/s.
        sender.sendSideEstimatedBitrate(100_000, from: peers.publisher)
        try await Self.feed(sender, 90, textured: true, from: &frame) { sender.statistics.encodedWidth == 320 }
        var stats = sender.statistics
        #expect(stats.encodedWidth == 320 && stats.encodedHeight == 240 && stats.resolutionChanges == 1, "\(stats)")
        try await Self.feed(sender, 15, textured: true, from: &frame)  // the first frames at the new size
        #expect(await eventually(within: .seconds(10)) { sizes.all.contains([320, 240]) }, "\(sizes.all)")

        // The estimate carries the full size again: up one size per 2 s hold.
        sender.sendSideEstimatedBitrate(5_000_000, from: peers.publisher)
        try await Self.feed(sender, 300, textured: true, from: &frame) { sender.statistics.encodedWidth == 640 }
        stats = sender.statistics
        #expect(stats.encodedWidth == 640 && stats.encodedHeight == 480 && stats.resolutionChanges == 3, "\(stats)")
        try await Self.feed(sender, 15, textured: true, from: &frame)
        #expect(await eventually(within: .seconds(10)) { sizes.all.last == [640, 480] }, "\(sizes.all)")
        #expect(sizes.all == [[640, 480], [320, 240], [480, 360], [640, 480]])
        #expect(stats.targetBitrate == 1_000_000)
    }

    @Test func aStillPictureScreenContentOrAnAdaptationTurnedOffKeepsTheSizeHoweverLowTheEstimate() async throws {
        // The still picture with adaptation on; the detailed one with it off, and as screen content.
        for (textured, adapts, hint) in [(false, true, VideoContentHint.none), (true, false, .none), (true, true, .detail)] {
            let peers = try await LoopbackPeerPair.connect(transportFeedbackInterval: nil)
            defer { peers.close() }
            var settings = Self.settings
            settings.adaptsResolution = adapts
            settings.contentHint = hint
            let sender = try VideoSendPipeline(settings: settings, previewRenderer: VideoSendPipelineTests.Preview())
            defer { sender.close() }
            try sender.attach(peers.publisher)
            var frame = 0
            try await Self.feed(sender, 10, textured: textured, from: &frame)
            sender.sendSideEstimatedBitrate(100_000, from: peers.publisher)
            try await Self.feed(sender, 60, textured: textured, from: &frame)
            let stats = sender.statistics
            // Screen tuning lets libvpx drop frames over its budget: fewer are encoded.
            #expect(stats.targetBitrate == 100_000 && stats.framesEncoded > (hint == .none ? 40 : 15), "\(stats)")
            #expect(stats.encodedWidth == 640 && stats.encodedHeight == 480 && stats.resolutionChanges == 0,
                    "textured \(textured), adapts \(adapts), \(hint): \(stats)")
        }
    }
}
