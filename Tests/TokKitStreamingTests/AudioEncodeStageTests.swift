import Testing
import TokKitMedia
@testable import TokKitStreaming

/// The audio encoder stage on its own: what it sends for a given input and settings (no network).
@Suite("AudioEncodeStage") struct AudioEncodeStageTests {
    struct Sent {
        let length: Int
        let timestamp: UInt32
        let marker: Bool
    }

    /// Encodes `samples` (mono, written in one call at one instant of the stage's clock, so the timestamps run
    /// without re-anchoring however long encoding takes) and returns what the stage handed on, and the stage's count
    /// of held-back frames.
    static func encode(_ samples: [Int16], _ settings: AudioEncodeSettings) throws -> (sent: [Sent], suppressed: Int) {
        let instant = MonotonicClock.now()
        var stage = try AudioEncodeStage(clockMapping: RTPClockMapping(clockRate: 48_000), settings: settings,
                                         now: { instant })
        var sent: [Sent] = []
        samples.withUnsafeBufferPointer { input in
            stage.write(input, channels: 1, enabled: true) { payload, timestamp, marker in
                sent.append(Sent(length: payload.count, timestamp: timestamp, marker: marker))
            }
        }
        return (sent, stage.framesSuppressed)
    }

    /// 1 s of 440 Hz, 2 s of digital silence, 1 s of 440 Hz: 200 frames of 20 ms.
    static let talkPauseTalk = Tone.samples(440, count: 48_000, offset: 0) + [Int16](repeating: 0, count: 96_000)
        + Tone.samples(440, count: 48_000, offset: 0)

    @Test func dtxHoldsBackMostOfAPauseAndMarksThePacketAfterEachGap() throws {
        let (sent, suppressed) = try Self.encode(Self.talkPauseTalk, AudioEncodeSettings(dtx: true))
        #expect(sent.count + suppressed == 200)
        // libopus enters DTX after about 200 ms of silence and refreshes the comfort noise every 400 ms.
        #expect(suppressed >= 70, "only \(suppressed) of 100 silent frames held back")
        #expect(sent.suffix(50).allSatisfy { $0.length > 2 }, "the returning tone is sent in full")
        // Timestamps advance 960 a frame, sent or not; the marker is set exactly where frames were held back.
        #expect(sent.last!.timestamp &- sent.first!.timestamp == 199 * 960)
        var gaps = 0
        for (previous, packet) in zip(sent, sent.dropFirst()) {
            let step = packet.timestamp &- previous.timestamp
            #expect(step % 960 == 0 && step > 0)
            #expect(packet.marker == (step > 960), "step \(step), marker \(packet.marker)")
            if step > 960 { gaps += 1 }
        }
        #expect(gaps >= 1 && !sent.first!.marker)
        // The first silent frame of the pause went out, so the receiver knows the pause began.
        #expect(sent.contains { $0.length <= 2 })
    }

    @Test func withoutDTXEveryFrameIsSentUnmarked() throws {
        let (sent, suppressed) = try Self.encode(Self.talkPauseTalk, AudioEncodeSettings())
        #expect(suppressed == 0 && sent.count == 200)
        #expect(sent.allSatisfy { !$0.marker })
    }

    @Test func theBitrateSetsThePacketSize() throws {
        var seed: UInt32 = 12_345
        let noise = (0..<96_000).map { _ -> Int16 in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return Int16(truncatingIfNeeded: Int32(bitPattern: seed) >> 19)
        }
        for bitrate in [12_000, 64_000] {
            let (sent, _) = try Self.encode(noise, AudioEncodeSettings(bitrate: bitrate))
            let bytesPerPacket = Double(sent.dropFirst(10).map(\.length).reduce(0, +)) / Double(sent.count - 10)
            let target = Double(bitrate) / 8 / 50
            #expect(bytesPerPacket > 0.6 * target && bytesPerPacket < 1.3 * target,
                    "\(bitrate) bit/s: \(bytesPerPacket) bytes a packet, target \(target)")
        }
    }

    @Test func aBitrateOutOfRangeIsRefused() {
        for bitrate in [0, 5_999, 510_001] {
            #expect(throws: StreamingError.self) { try AudioEncodeSettings(bitrate: bitrate).validate() }
            #expect(throws: StreamingError.self) { _ = try AudioSendPipeline(settings: AudioEncodeSettings(bitrate: bitrate)) }
        }
        #expect(throws: Never.self) { _ = try AudioSendPipeline(settings: AudioEncodeSettings(bitrate: 6_000, dtx: true)) }
    }
}
