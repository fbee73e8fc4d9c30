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

    /// Runs `seconds` of media; the audio receiver's statistics at the end, and how much later the video plays its
    /// captures than the audio over the last second, from the sender's own clock mappings (this process made both
    /// streams: no sender report involved), as (lowest, highest).
    static func run(videoDelay: Duration, synchronize: Bool, seconds: Int = 8) async throws
        -> (AudioReceiveStatistics, (Duration, Duration)?) {
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
        var residuals: [Duration] = []
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
            if tick >= (seconds - 1) * 100, tick % 10 == 0, let played = audio.lastPlayed,
               let frame = video.statistics.lastRenderedFrame {
                let audioLatency = played.playedAt - sender.clockMapping.time(of: played.rtpTimestamp, near: played.playedAt)
                let videoLatency = frame.renderedAt - videoClock.time(of: frame.rtpTimestamp, near: frame.renderedAt)
                residuals.append(videoLatency - audioLatency)
            }
            try await Task.sleep(until: start + .milliseconds(10) * (tick + 1), clock: .continuous)
        }
        #expect(video.statistics.framesDecoded > seconds * 20, "\(video.statistics)")
        return (audio.statistics, residuals.isEmpty ? nil : (residuals.min()!, residuals.max()!))
    }

    @Test func theAudioTakesOnTheVideosPlayoutDelay() async throws {
        let (s, residual) = try await Self.run(videoDelay: .milliseconds(200), synchronize: true)
        let lag = try #require(s.syncLag, "no measurement: \(s)")
        let (low, high) = try #require(residual)
        print("lip sync: video lag \(lag), audio delay \(s.syncDelay), \(s.packetsHeldForSync) holds, \(s.packetsConcealed) concealed; video behind audio by \(low)...\(high) from the clock mappings")
        // Checked without the sender reports: the video plays its captures within 30 ms of the audio (a 20 ms step,
        // the 10 ms read and the 33 ms frame interval between the two "last played").
        #expect(low > .milliseconds(-45) && high < .milliseconds(45), "\(low)...\(high)")
        // The video plays ~200 ms after capture, the audio ~40 ms (its jitter buffer) plus transit and the read
        // schedule: the lag is ~160 ms, and the audio's delay within a step of it once it has moved.
        #expect(lag > .milliseconds(100) && lag < .milliseconds(260), "\(s)")
        #expect(s.syncDelay - lag < .milliseconds(30) && lag - s.syncDelay < .milliseconds(30), "\(s)")
        #expect(s.packetsHeldForSync == Int(s.syncDelay / .milliseconds(20)), "one hold per 20 ms added: \(s)")
    }

    @Test func withoutSynchronizationTheAudioKeepsItsOwnDelay() async throws {
        let (s, residual) = try await Self.run(videoDelay: .milliseconds(200), synchronize: false, seconds: 4)
        #expect(s.syncLag == nil && s.syncDelay == .zero && s.packetsHeldForSync == 0, "\(s)")
        // The same clock-mapping measurement shows the video ~160 ms behind then.
        let (low, high) = try #require(residual)
        print("without lip sync: video behind audio by \(low)...\(high)")
        #expect(low > .milliseconds(100), "\(low)...\(high)")
    }
}
