import Testing
import TokKitCodecs
import TokKitMedia
import TokKitTesting

/// Each encoded frame carries the quantizer libvpx chose, on the scale of ``VP8Encoder/maximumQuantizer``: what the
/// send pipeline reads to tell a size the bitrate cannot carry (frames at the highest quantizer) from one it can.
@Suite struct VP8EncoderQuantizerTests {
    @Test func theQuantizerIsLowAtAHighBitrateAndAtItsHighestWhenTheBitrateCannotCarryTheSize() throws {
        let sequence = PictureSequence(.textured)
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(width: PictureSequence.width,
                                                                  height: PictureSequence.height,
                                                                  bitrate: 5_000_000))
        let pool = VideoFramePool(capacity: 2)
        var quantizers: [Int?] = []
        for i in 0 ..< 90 {
            // 640x480 of this sequence needs ~290 kb/s at the highest quantizer: 60 kb/s is far under.
            if i == 45 { try encoder.setBitrate(60_000) }
            let frame = try pool.makeFrame(format: .i420(width: PictureSequence.width, height: PictureSequence.height),
                                           timestamp: .milliseconds(1000 * i / 30))
            sequence.withFrame(i) { y, u, v in
                frame.withMutablePlanes { planes in
                    for (plane, source) in [y, u, v].enumerated() { planes[plane].copyMemory(from: source) }
                }
            }
            try encoder.encode(frame) { quantizers.append($0.quantizer) }
        }
        try #require(quantizers.count == 90 && quantizers.allSatisfy { $0 != nil })
        let values = quantizers.compactMap { $0 }
        #expect(values.allSatisfy { (0...VP8Encoder.maximumQuantizer).contains($0) }, "\(values)")
        #expect(values[30 ..< 45].allSatisfy { $0 < 30 }, "at 5 Mb/s: \(values[30 ..< 45])")
        #expect(values[75 ..< 90].allSatisfy { $0 >= VP8Encoder.maximumQuantizer - 2 }, "at 60 kb/s: \(values[75 ..< 90])")
    }
}
