import Testing
import TokKitICETestSupport
import TokKitMedia
@testable import TokKitPeer
@testable import TokKitStreaming
import TokKitTesting

/// Lip sync end to end over a real peer pair: a publisher sends a tone (``AudioSendPipeline``) and VP8 key frames
/// stamped on the same capture clock, with sender reports; the subscriber's video plays with a fixed 200 ms playout
/// delay, its audio is read every 10 ms in real time and follows the video (``AudioReceivePipeline/synchronize(with:)``).
/// The audio, 40 ms behind capture on its own, takes on the difference through holds.
@Suite("Lip sync", .serialized) struct LipSyncTests {
    /// A 32x32 grey VP8 keyframe behind a one-byte RFC 7741 payload descriptor (S=1).
    static let vp8Keyframe: [UInt8] = [0x10] + [
        0x30, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x20, 0x00, 0x20, 0x00, 0x00, 0x47, 0x08, 0x85, 0x85, 0x88, 0x85, 0x84,
        0x88, 0x02, 0x02, 0x00, 0x07, 0x91, 0x28, 0xD9, 0x60, 0xFE, 0x68, 0x00,
    ]

    /// Runs `seconds` of media; the audio receiver's statistics at the end.
    static func run(videoDelay: Duration, synchronize: Bool, seconds: Int = 8) async throws -> AudioReceiveStatistics {
        let peers = try await LoopbackPeerPair.connect()
        defer { peers.close() }
        let sender = try AudioSendPipeline()
        try sender.attach(peers.publisher)
        let video = VideoReceivePipeline(peer: peers.subscriber, renderer: nil,
                                         playout: .init(minimumDelay: videoDelay, maximumDelay: videoDelay))
        let audio = AudioReceivePipeline(peer: peers.subscriber)
        defer { sender.close(); audio.close(); video.close() }
        if synchronize { audio.synchronize(with: video) }
        let videoClock = RTPClockMapping(clockRate: 90_000)
        peers.publisher.setSendTimestampOrigin(.video, rtpTimestampAtZero: videoClock.offset)
        var period = [Int16](repeating: 0, count: 480)
        let start = ContinuousClock.now
        for tick in 0..<(seconds * 100) {  // 10 ms ticks on an absolute schedule
            Tone.samples(440, count: 480, offset: tick * 480).withUnsafeBufferPointer { sender.write($0, channels: 1) }
            if tick % 3 == 0 {
                let timestamp = videoClock.timestamp(at: MonotonicClock.now())
                try Self.vp8Keyframe.withUnsafeBytes {
                    try peers.publisher.sendRTP(.video, payload: $0, timestamp: timestamp, marker: true)
                }
            }
            if tick % 50 == 0 { try? peers.publisher.sendReports() }  // these peers have no report timer
            period.withUnsafeMutableBufferPointer { _ = audio.read(into: $0) }
            try await Task.sleep(until: start + .milliseconds(10) * (tick + 1), clock: .continuous)
        }
        #expect(video.statistics.framesDecoded > seconds * 20, "\(video.statistics)")
        return audio.statistics
    }

    @Test func theAudioTakesOnTheVideosPlayoutDelay() async throws {
        let s = try await Self.run(videoDelay: .milliseconds(200), synchronize: true)
        let lag = try #require(s.syncLag, "no measurement: \(s)")
        print("lip sync: video lag \(lag), audio delay \(s.syncDelay), \(s.packetsHeldForSync) holds, \(s.packetsConcealed) concealed")
        // The video plays ~200 ms after capture, the audio ~40 ms (its jitter buffer) plus transit and the read
        // schedule: the lag is ~160 ms, and the audio's delay within a step of it once it has moved.
        #expect(lag > .milliseconds(100) && lag < .milliseconds(260), "\(s)")
        #expect(s.syncDelay - lag < .milliseconds(30) && lag - s.syncDelay < .milliseconds(30), "\(s)")
        #expect(s.packetsHeldForSync == Int(s.syncDelay / .milliseconds(20)), "one hold per 20 ms added: \(s)")
    }

    @Test func withoutSynchronizationTheAudioKeepsItsOwnDelay() async throws {
        let s = try await Self.run(videoDelay: .milliseconds(200), synchronize: false, seconds: 4)
        #expect(s.syncLag == nil && s.syncDelay == .zero && s.packetsHeldForSync == 0, "\(s)")
    }
}
