import Testing
import TokKitCodecs
import TokKitMedia

/// A small deterministic generator (SplitMix64) so that "random" input is the same on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct VP8DecoderTests {
    /// Encoded frames of the colour-bar pattern.
    static func encoded(width: Int, height: Int, count: Int) throws -> [[UInt8]] {
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(width: width, height: height, bitrate: 800_000))
        let pool = VideoFramePool(capacity: 2)
        var out: [[UInt8]] = []
        for i in 0..<count {
            try encoder.encode(try TestSignals.colourBars(width: width, height: height, index: i, pool: pool)) {
                out.append(Array($0.bytes))
            }
        }
        return out
    }

    static func isCorrupt(_ error: any Error) -> Bool {
        if case .corruptFrame = error as? CodecError { true } else { false }
    }

    @Test func emptyAndGarbageInputAreTypedErrors() throws {
        let decoder = try VP8Decoder()
        #expect(performing: { _ = try decoder.decode(UnsafeRawBufferPointer(start: nil, count: 0)) }, throws: Self.isCorrupt)
        var rng = SplitMix64(state: 42)
        var failures = 0
        for length in [1, 2, 3, 9, 10, 64, 1000, 20_000] {
            let garbage = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            do {
                _ = try garbage.withUnsafeBytes { try decoder.decode($0) }
            } catch {
                #expect(Self.isCorrupt(error), "\(error)")
                failures += 1
            }
        }
        #expect(failures == 8, "garbage before any keyframe never decodes")
        // The decoder is still usable afterwards.
        let frames = try Self.encoded(width: 320, height: 240, count: 1)
        let picture = try frames[0].withUnsafeBytes { try decoder.decode($0) }
        #expect(picture?.format.width == 320)
    }

    @Test func truncatedAndDamagedFramesNeverCrashAndTheNextKeyframeRecovers() throws {
        let stream = try Self.encoded(width: 320, height: 240, count: 3)
        let decoder = try VP8Decoder()
        let keyframe = stream[0]
        // Every truncation of a keyframe, in steps: an error or no picture, never a crash or a wrong size.
        for length in stride(from: 1, to: keyframe.count, by: max(1, keyframe.count / 64)) {
            do {
                if let frame = try keyframe[..<length].withUnsafeBytes({ try decoder.decode($0) }) {
                    #expect(frame.format.width == 320 && frame.format.height == 240)
                }
            } catch {
                #expect(Self.isCorrupt(error), "\(error)")
            }
        }
        // Flipped bytes in a delta frame after a good keyframe.
        _ = try keyframe.withUnsafeBytes { try decoder.decode($0) }
        var rng = SplitMix64(state: 7)
        for _ in 0..<32 {
            var damaged = stream[1]
            for _ in 0..<4 { damaged[Int.random(in: 0..<damaged.count, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng) }
            do { _ = try damaged.withUnsafeBytes { try decoder.decode($0) } } catch { #expect(Self.isCorrupt(error), "\(error)") }
        }
        let recovered = try #require(try keyframe.withUnsafeBytes { try decoder.decode($0) })
        let pool = VideoFramePool(capacity: 1)
        #expect(TestSignals.psnrY(try TestSignals.colourBars(width: 320, height: 240, index: 0, pool: pool), recovered) > 35)
    }

    @Test func resolutionChangesFollowTheStream() throws {
        let decoder = try VP8Decoder()
        for (w, h) in [(320, 240), (640, 480), (160, 120)] {
            for bytes in try Self.encoded(width: w, height: h, count: 2) {
                let frame = try #require(try bytes.withUnsafeBytes { try decoder.decode($0) })
                #expect(frame.format.width == w && frame.format.height == h)
            }
        }
    }

    @Test func heldFramesExhaustThePoolThenFreeIt() throws {
        let stream = try Self.encoded(width: 160, height: 120, count: 3)
        let decoder = try VP8Decoder(poolCapacity: 1)
        var held = try stream[0].withUnsafeBytes { try decoder.decode($0) }
        #expect(held != nil)
        #expect(throws: CodecError.poolExhausted(capacity: 1)) { _ = try stream[1].withUnsafeBytes { try decoder.decode($0) } }
        held = nil
        let next = try stream[2].withUnsafeBytes { try decoder.decode($0) }
        #expect(next?.format.width == 160, "decoding continues once the renderer lets go")
        _ = held
    }

    @Test func aLentPictureIsTheSamePictureWithoutUsingThePool() throws {
        let stream = try Self.encoded(width: 320, height: 240, count: 4)
        let copying = try VP8Decoder(), lending = try VP8Decoder(poolCapacity: 1)
        var held: [VideoFrame] = []  // holding lent-mode output must not matter: nothing comes from the pool
        for (n, bytes) in stream.enumerated() {
            let copy = try #require(try bytes.withUnsafeBytes { try copying.decode($0) })
            var calls = 0
            let shown = try bytes.withUnsafeBytes { b in
                try lending.decode(b, timestamp: .milliseconds(33 * n)) { frame in
                    calls += 1
                    #expect(frame.isBorrowed)
                    #expect(frame.timestamp == .milliseconds(33 * n))
                    #expect(frame.format.width == 320 && frame.format.height == 240)
                    #expect(frame.format.bytesPerRow[0] >= 320, "libvpx's rows, padding included")
                    #expect(Self.samePixels(frame, copy), "frame \(n)")
                    held.append(try! frame.copy(using: VideoFramePool(capacity: 1)))
                }
            }
            #expect(shown && calls == 1)
        }
        #expect(held.count == 4)
        // Errors are the same typed errors, and the body never runs for them.
        var ran = false
        #expect(performing: { try lending.decode(UnsafeRawBufferPointer(start: nil, count: 0)) { _ in ran = true } },
                throws: Self.isCorrupt)
        #expect(!ran)
    }

    /// Whether two I420 frames of the same size hold the same pixels, whatever their strides.
    static func samePixels(_ a: VideoFrame, _ b: VideoFrame) -> Bool {
        let (w, h) = (a.format.width, a.format.height)
        return (try? a.withPlanes { (pa) throws(VideoFrameError) in
            try b.withPlanes { pb in
                (0..<3).allSatisfy { plane in
                    let (pw, ph) = plane == 0 ? (w, h) : ((w + 1) / 2, (h + 1) / 2)
                    let (sa, sb) = (a.format.bytesPerRow[plane], b.format.bytesPerRow[plane])
                    return (0..<ph).allSatisfy { row in
                        pa[plane][(row * sa)..<(row * sa + pw)].elementsEqual(pb[plane][(row * sb)..<(row * sb + pw)])
                    }
                }
            }
        }) ?? false
    }

    @Test func aLentPictureKeptPastTheCallExpiresAndCannotBeEncoded() throws {
        let stream = try Self.encoded(width: 320, height: 240, count: 2)
        let decoder = try VP8Decoder(poolCapacity: 1)
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(width: 320, height: 240, bitrate: 800_000))
        var kept: VideoFrame?
        _ = try stream[0].withUnsafeBytes { b in
            try decoder.decode(b) { frame in
                kept = frame
                #expect(((try? frame.withPlanes { $0[0].count }) ?? 0) >= 320 * 240, "readable inside the call")
            }
        }
        // The next picture is decoded into libvpx's buffers, where the kept frame pointed.
        _ = try stream[1].withUnsafeBytes { b in try decoder.decode(b) { _ in } }
        let frame = try #require(kept)
        #expect(throws: VideoFrameError.expired) { try frame.withPlanes { Array($0[0].prefix(16)) } }
        #expect(throws: VideoFrameError.expired) { try frame.copy(using: VideoFramePool(capacity: 1)) }
        var packets = 0
        #expect(throws: CodecError.expiredFrame) { try encoder.encode(frame) { _ in packets += 1 } }
        #expect(packets == 0)
    }

    @Test func invalidSettingsAreRejected() {
        #expect(throws: CodecError.invalidSettings("poolCapacity 0 (>= 1)")) { _ = try VP8Decoder(poolCapacity: 0) }
        #expect(throws: CodecError.invalidSettings("threads 0 (1...16)")) { _ = try VP8Decoder(threads: 0) }
    }
}
