import Testing
import TokKitCodecs
import TokKitMedia
import TokKitTesting

/// A key frame asked for mid-stream must not be followed by a frame that spends libvpx's whole rate buffer
/// (``VP8Encoder``'s rate buffer limits): on the camera-like test sequence at 640x480, libvpx 1.12 followed a
/// 2.8 kB key frame at 1 Mb/s with a 56 kB delta frame, and after a cut to 261 kb/s a 1.9 kB key frame with a 37 kB
/// one. Behind a bottleneck such a frame is lost and asked for again.
@Suite struct VP8KeyframeOvershootTests {
    /// Encodes 200 frames of the textured sequence at 1 Mb/s, the bitrate cut in steps from frame 150 when `cut`
    /// (as a congestion estimate falls), a key frame forced at frame `keyframe`; returns each output's size and kind and
    /// the final per-frame budget in bytes.
    static func encode(cut: Bool, keyframe: Int? = 166) throws -> (frames: [(bytes: Int, isKeyframe: Bool)], budget: Int) {
        try encode(steps: cut ? [150: 582_000, 157: 357_000, 164: 261_000] : [:], keyframe: keyframe)
    }

    /// Encodes 200 frames of the textured sequence at 1 Mb/s, the bitrate set to `steps[i]` before frame i.
    static func encode(steps: [Int: Int], keyframe: Int?)
        throws -> (frames: [(bytes: Int, isKeyframe: Bool)], budget: Int) {
        let sequence = PictureSequence(.textured)
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(width: PictureSequence.width,
                                                                  height: PictureSequence.height,
                                                                  bitrate: 1_000_000))
        let pool = VideoFramePool(capacity: 2)
        var frames: [(bytes: Int, isKeyframe: Bool)] = []
        for i in 0 ..< 200 {
            if let bitrate = steps[i] { try encoder.setBitrate(bitrate) }
            let frame = try pool.makeFrame(format: .i420(width: PictureSequence.width, height: PictureSequence.height),
                                           timestamp: .milliseconds(1000 * i / 30))
            sequence.withFrame(i) { y, u, v in
                frame.withMutablePlanes { planes in
                    for (plane, source) in [y, u, v].enumerated() {
                        planes[plane].copyMemory(from: source)
                    }
                }
            }
            var produced = 0
            try encoder.encode(frame, forceKeyframe: i == keyframe) {
                frames.append(($0.bytes.count, $0.isKeyframe))
                produced += 1
            }
            #expect(produced == 1, "frame \(i): camera content is never dropped")
        }
        return (frames, encoder.settings.bitrate / 8 / 30)
    }

    /// The 30 frames after the key frame stay within 4 frame budgets each (without the limits: 13 and 34 budgets).
    @Test(arguments: [false, true])
    func theFramesAfterAKeyframeAskedForStayNearTheirBudget(cut: Bool) throws {
        let (frames, budget) = try Self.encode(cut: cut)
        try #require(frames.count == 200)
        #expect(frames[166].isKeyframe)
        let after = frames[167 ..< 197]
        #expect(after.allSatisfy { !$0.isKeyframe })
        let largest = after.map(\.bytes).max() ?? 0
        #expect(largest < 4 * budget, "largest frame after the key frame: \(largest) bytes, budget \(budget)")
    }

    /// A cut shows at once: the second after the bitrate fell from 1 Mb/s to 261 kb/s (in three steps within 0.5 s)
    /// carries at most 20 % over the new target. libvpx kept the bits it had saved at 1 Mb/s and spent them at the
    /// old quantizer: 371 kb/s over that second without the 600 ms clip, 265 kb/s with it (this test, libvpx 1.12).
    @Test func aCutShowsWithinASecond() throws {
        let (frames, budget) = try Self.encode(cut: true, keyframe: nil)
        try #require(frames.count == 200)
        let second = frames[164 ..< 194].map(\.bytes).reduce(0, +)
        #expect(second < 30 * budget * 12 / 10, "\(second * 8) bits in the second after the cut, target 261,000")
    }

    /// A fall to less than half is undershot at first (``VP8Encoder``'s collapse level), so that the queue of a path
    /// that stopped carrying the old rate can drain: from 1 Mb/s to 300 kb/s in one step, the first 300 ms carry under
    /// 60 % of the new target (40 % with libvpx 1.12; at the level of smaller cuts, 103 %), and the 400 ms from 0.6 s
    /// on over 70 % (86 %). A fall to 600 kb/s is not undershot: over 85 % in the first 300 ms (99 %).
    @Test func aCollapseIsUndershotAtFirst() throws {
        func bytes(_ frames: [(bytes: Int, isKeyframe: Bool)], _ range: Range<Int>) -> Int {
            frames[range].map(\.bytes).reduce(0, +)
        }
        let (collapse, budget) = try Self.encode(steps: [150: 300_000], keyframe: nil)
        try #require(collapse.count == 200)
        #expect(bytes(collapse, 150 ..< 159) < 9 * budget * 6 / 10,
                "\(bytes(collapse, 150 ..< 159) * 8 * 30 / 9) b/s in the 300 ms after the fall to 300 kb/s")
        #expect(bytes(collapse, 168 ..< 180) > 12 * budget * 7 / 10,
                "\(bytes(collapse, 168 ..< 180) * 8 * 30 / 12) b/s 0.6-1 s after the fall to 300 kb/s")
        let (cut, cutBudget) = try Self.encode(steps: [150: 600_000], keyframe: nil)
        try #require(cut.count == 200)
        #expect(bytes(cut, 150 ..< 159) > 9 * cutBudget * 85 / 100,
                "\(bytes(cut, 150 ..< 159) * 8 * 30 / 9) b/s in the 300 ms after the fall to 600 kb/s")
    }
}
