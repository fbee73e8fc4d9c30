import Testing
import TokKitCodecs
import TokKitMedia

/// Everything `VP8Encoder` produced for a run of frames, copied out of the borrowed packets.
struct EncodedRun {
    var frames: [(bytes: [UInt8], isKeyframe: Bool)] = []
    var totalBytes: Int { frames.reduce(0) { $0 + $1.bytes.count } }
}

@Suite struct VP8EncoderTests {
    /// Encodes `count` colour-bar frames, decodes each one and returns the encoded run and the lowest Y PSNR.
    static func roundTrip(
        _ settings: VP8EncoderSettings, count: Int = 30, forceKeyframeAt: Set<Int> = []
    ) throws -> (run: EncodedRun, minimumPSNR: Double) {
        let encoder = try VP8Encoder(settings: settings)
        let decoder = try VP8Decoder(poolCapacity: 2)
        let pool = VideoFramePool(capacity: 2)
        var run = EncodedRun()
        var minimum = Double.infinity
        for i in 0..<count {
            let source = try TestSignals.colourBars(
                width: settings.width, height: settings.height, index: i, fps: settings.framesPerSecond, pool: pool)
            var produced = 0
            try encoder.encode(source, forceKeyframe: forceKeyframeAt.contains(i)) { encoded in
                produced += 1
                #expect(encoded.width == settings.width && encoded.height == settings.height)
                #expect(encoded.timestamp == source.timestamp)
                run.frames.append((Array(encoded.bytes), encoded.isKeyframe))
            }
            #expect(produced == 1, "frame \(i): one packet per frame")
            guard let last = run.frames.last, produced == 1 else { continue }
            let decoded = try last.bytes.withUnsafeBytes { try decoder.decode($0, timestamp: source.timestamp) }
            let frame = try #require(decoded, "frame \(i) decoded to a picture")
            #expect(frame.format.pixelFormat == .i420)
            #expect(frame.format.width == settings.width && frame.format.height == settings.height)
            #expect(frame.timestamp == source.timestamp)
            #expect(!frame.isBorrowed, "decoded frames are pooled")
            minimum = min(minimum, TestSignals.psnrY(source, frame))
        }
        return (run, minimum)
    }

    // Measured here (libvpx 1.12, cpu-used -6, 1 Mbps): lowest Y PSNR over 30 frames ≈ 40.5 dB at 640x480 and
    // ≈ 44 dB at 320x240. Thresholds sit a few dB below.
    @Test(arguments: [(640, 480, 37.0), (320, 240, 40.0)])
    func roundTripKeepsThePicture(width: Int, height: Int, minimumPSNR: Double) throws {
        let (run, psnr) = try Self.roundTrip(VP8EncoderSettings(width: width, height: height, bitrate: 1_000_000))
        #expect(run.frames.count == 30)
        #expect(run.frames.first?.isKeyframe == true, "the first frame is a keyframe")
        #expect(run.frames.dropFirst().allSatisfy { !$0.isKeyframe }, "no keyframe without a reason")
        #expect(psnr > minimumPSNR, "lowest Y PSNR \(psnr) dB at \(width)x\(height)")
        print("VP8 \(width)x\(height) @1 Mbps: lowest Y PSNR \(psnr) dB, \(run.totalBytes) bytes for 30 frames")
    }
}
