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

    // Measured here (libvpx 1.12, cpu-used -6, 1 Mbps): lowest Y PSNR over 30 frames ≈ 32.6 dB at 640x480 and
    // ≈ 43.5 dB at 320x240 (the scrolling noise is the hard part). Thresholds sit about 3 dB below.
    @Test(arguments: [(640, 480, 29.5), (320, 240, 40.0)])
    func roundTripKeepsThePicture(width: Int, height: Int, minimumPSNR: Double) throws {
        let (run, psnr) = try Self.roundTrip(VP8EncoderSettings(width: width, height: height, bitrate: 1_000_000))
        #expect(run.frames.count == 30)
        #expect(run.frames.first?.isKeyframe == true, "the first frame is a keyframe")
        #expect(run.frames.dropFirst().allSatisfy { !$0.isKeyframe }, "no keyframe without a reason")
        #expect(psnr > minimumPSNR, "lowest Y PSNR \(psnr) dB at \(width)x\(height)")
        print("VP8 \(width)x\(height) @1 Mbps: lowest Y PSNR \(psnr) dB, \(run.totalBytes) bytes for 30 frames")
    }
}

extension VP8EncoderTests {
    @Test func forceKeyframeAndRequestKeyframeProduceKeyframes() throws {
        let settings = VP8EncoderSettings(width: 320, height: 240, bitrate: 500_000)
        let encoder = try VP8Encoder(settings: settings)
        let pool = VideoFramePool(capacity: 2)
        var keyframes: [Int] = []
        for i in 0..<12 {
            if i == 8 { encoder.requestKeyframe() }
            let frame = try TestSignals.colourBars(width: 320, height: 240, index: i, pool: pool)
            try encoder.encode(frame, forceKeyframe: i == 4) { if $0.isKeyframe { keyframes.append(i) } }
        }
        #expect(keyframes == [0, 4, 8], "keyframes at the start, when forced and when requested (once)")
    }

    @Test func setBitrateChangesTheOutputSize() throws {
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(width: 640, height: 480, bitrate: 1_500_000))
        let pool = VideoFramePool(capacity: 2)
        func bytes(frames range: Range<Int>) throws -> Int {
            var total = 0
            for i in range {
                try encoder.encode(try TestSignals.colourBars(width: 640, height: 480, index: i, pool: pool)) { total += $0.bytes.count }
            }
            return total
        }
        _ = try bytes(frames: 0..<10)
        let high = try bytes(frames: 10..<30)
        try encoder.setBitrate(150_000)
        #expect(encoder.settings.bitrate == 150_000)
        _ = try bytes(frames: 30..<40)
        let low = try bytes(frames: 40..<60)
        #expect(Double(low) < 0.5 * Double(high), "20 frames: \(high) bytes at 1.5 Mbps, \(low) bytes at 150 kbps")
        #expect(throws: CodecError.self) { try encoder.setBitrate(10) }
        #expect(encoder.settings.bitrate == 150_000, "a rejected rate leaves the previous one")
    }

    @Test(arguments: [VideoContentHint.detail, .text])
    func screenTuningKeepsDetailWithinBudgetAtALowFrameRate(hint: VideoContentHint) throws {
        let settings = VP8EncoderSettings(width: 640, height: 480, framesPerSecond: 5, bitrate: 500_000, contentHint: hint)
        #expect(settings.isScreenContent)
        let encoder = try VP8Encoder(settings: settings)
        let decoder = try VP8Decoder()
        let pool = VideoFramePool(capacity: 2)
        let still = try TestSignals.colourBars(width: 640, height: 480, index: 3, pool: pool)
        var sizes: [Int] = []
        var last: VideoFrame?
        for i in 0..<10 {  // two seconds of a still screen at 5 fps
            var frame = still
            frame.timestamp = .milliseconds(200 * i)
            try encoder.encode(frame) { encoded in
                sizes.append(encoded.bytes.count)
                #expect(encoded.isKeyframe == (sizes.count == 1))
                if let decoded = try? decoder.decode(encoded.bytes) { last = decoded }
            }
        }
        #expect(sizes.count >= 5, "frame dropping may skip some frames, not most: \(sizes)")
        let picture = try #require(last)
        let psnr = TestSignals.psnrY(still, picture)
        // Measured: ≈ 40.5 dB after two seconds (the minimum quantizer of screen tuning caps it).
        #expect(psnr > 38, "screen content converges to a sharp picture: \(psnr) dB")
        let total = sizes.reduce(0, +)
        #expect(total * 8 <= 500_000 * 2 * 12 / 10, "two seconds within 120 % of the 500 kbps budget: \(sizes)")
        #expect(sizes.last! < sizes.first! / 2, "a still screen gets cheaper: \(sizes)")
        print("VP8 screen \(hint): \(sizes) bytes, final Y PSNR \(psnr) dB")
    }

    @Test func wrongFormatOrSizeIsATypedError() throws {
        let settings = VP8EncoderSettings(width: 320, height: 240)
        let encoder = try VP8Encoder(settings: settings)
        let small = try VideoFramePool(capacity: 1).makeFrame(format: .i420(width: 160, height: 120))
        #expect(throws: CodecError.unsupportedFormat(expected: settings.frameFormat, actual: small.format)) {
            try encoder.encode(small) { _ in Issue.record("no output for a rejected frame") }
        }
        let nv12 = try VideoFramePool(capacity: 1).makeFrame(format: .nv12(width: 320, height: 240))
        #expect(throws: CodecError.unsupportedFormat(expected: settings.frameFormat, actual: nv12.format)) {
            try encoder.encode(nv12) { _ in Issue.record("no output for a rejected frame") }
        }
        // Padded rows are fine.
        let padded = VideoFormat(pixelFormat: .i420, width: 320, height: 240, bytesPerRow: [384, 192, 192])
        var produced = 0
        try encoder.encode(try VideoFramePool(capacity: 1).makeFrame(format: padded)) { _ in produced += 1 }
        #expect(produced == 1)
    }

    @Test(arguments: [
        VP8EncoderSettings(width: 0, height: 240), VP8EncoderSettings(width: 320, height: 240, framesPerSecond: 0),
        VP8EncoderSettings(width: 320, height: 240, bitrate: 10), VP8EncoderSettings(width: 320, height: 240, cpuUsed: 99),
        VP8EncoderSettings(width: 320, height: 240, keyframeMaxInterval: 0), VP8EncoderSettings(width: 320, height: 240, threads: 0),
    ])
    func invalidSettingsAreRejected(settings: VP8EncoderSettings) {
        #expect {
            _ = try VP8Encoder(settings: settings)
        } throws: { error in
            if case .invalidSettings = error as? CodecError { true } else { false }
        }
    }
}
