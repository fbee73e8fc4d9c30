import Testing
import TokKitPeer
import TokKitRTP
@testable import TokKitStreaming

/// Lip sync from sender reports (``AudioVideoSync``), with a simulated publisher and subscriber: the audio plays
/// its captures `audioDelay` after they were made plus the extra delay the sync asks for, the video `videoDelay`
/// after; the sync measures twice a second.
@Suite struct AudioVideoSyncTests {
    /// One publisher: both streams' reports from one NTP clock, each with its own random RTP origin.
    struct Publisher {
        let ntpAtZero: UInt64 = 3_900_000_000 << 32  // some date in 2023
        let audioOrigin: UInt32 = 0xFFFF_0000, videoOrigin: UInt32 = 123_456
        /// Its sender reports made at capture time `t` (the publisher's own clock).
        func reports(at t: Duration) -> (audio: RemoteSenderReport, video: RemoteSenderReport) {
            let ntp = NTPTimestamp(rawValue: ntpAtZero &+ UInt64(t / .microseconds(1)) * (1 << 32) / 1_000_000)
            return (RemoteSenderReport(ntp: ntp, rtpTimestamp: audioRTP(t)),
                    RemoteSenderReport(ntp: ntp, rtpTimestamp: videoRTP(t)))
        }
        func audioRTP(_ t: Duration) -> UInt32 { audioOrigin &+ UInt32(truncatingIfNeeded: Int64(t / .microseconds(1) * 48 / 1_000)) }
        func videoRTP(_ t: Duration) -> UInt32 { videoOrigin &+ UInt32(truncatingIfNeeded: Int64(t / .microseconds(1) * 90 / 1_000)) }
    }

    /// Runs `updates` measurements, 500 ms apart; the local clock is `clockOffset` ahead of the publisher's.
    /// Returns the delays asked for, in order.
    static func run(_ sync: inout AudioVideoSync, audioDelay: Duration, videoDelay: (Int) -> Duration,
                    updates: Int = 20, clockOffset: Duration = .seconds(1_000), reportsKnown: Bool = true)
        -> [Duration] {
        let publisher = Publisher()
        var changes: [Duration] = []
        for n in 0..<updates {
            let now = Duration.seconds(10) + .milliseconds(500) * n + clockOffset
            // What each stream plays at `now`: captured its delay ago (the audio's including the extra delay).
            let audioCapture = now - clockOffset - audioDelay - sync.delay
            let videoCapture = now - clockOffset - videoDelay(n)
            let reports = publisher.reports(at: .seconds(9) + .milliseconds(500) * n)
            let change = sync.update(
                audio: .init(rtpTimestamp: publisher.audioRTP(audioCapture), playedAt: now),
                video: .init(rtpTimestamp: publisher.videoRTP(videoCapture), playedAt: now),
                audioReport: reportsKnown ? reports.audio : nil, videoReport: reportsKnown ? reports.video : nil,
                now: now)
            if let change { changes.append(change) }
        }
        return changes
    }

    @Test func theAudioWaitsForTheVideoSmoothlyInPacketSteps() {
        var sync = AudioVideoSync()
        let changes = Self.run(&sync, audioDelay: .milliseconds(40), videoDelay: { _ in .milliseconds(150) })
        // 110 ms behind: up by at most 40 ms an update, in 20 ms steps, to within half a step of it.
        #expect(changes == [.milliseconds(40), .milliseconds(80), .milliseconds(120)], "\(changes)")
        #expect(sync.lastLag.map { abs(($0 - .milliseconds(110)) / .milliseconds(1)) < 1 } == true, "\(String(describing: sync.lastLag))")
    }

    /// Video that stops playing (turned off, frozen for good) leaves the audio waiting no longer: the delay goes
    /// back to zero by the largest change an update, while the audio plays on.
    @Test func theAudioStopsWaitingForAVideoThatStopped() {
        var sync = AudioVideoSync()
        _ = Self.run(&sync, audioDelay: .milliseconds(40), videoDelay: { _ in .milliseconds(150) })
        #expect(sync.delay == .milliseconds(120))
        let publisher = Publisher()
        let lastVideo = Duration.seconds(1_020)
        var changes: [Duration] = []
        for n in 1...6 {
            let now = lastVideo + .seconds(1) + .milliseconds(500) * n
            let reports = publisher.reports(at: now - .seconds(1_001))
            if let change = sync.update(
                audio: .init(rtpTimestamp: publisher.audioRTP(now - .seconds(1_000)), playedAt: now),
                video: .init(rtpTimestamp: publisher.videoRTP(lastVideo - .seconds(1_000)), playedAt: lastVideo),
                audioReport: reports.audio, videoReport: reports.video, now: now) {
                changes.append(change)
            }
        }
        #expect(changes == [.milliseconds(80), .milliseconds(40), .zero], "\(changes)")
        #expect(sync.delay == .zero)
    }

    @Test func theDelayFollowsTheVideoBackDownAndNeverBelowZero() {
        var sync = AudioVideoSync()
        // 150 ms for 10 updates, then the video's delay falls to 30 ms: below the audio's own 40.
        let changes = Self.run(&sync, audioDelay: .milliseconds(40), videoDelay: { $0 < 10 ? .milliseconds(150) : .milliseconds(30) },
                               updates: 30)
        #expect(changes.first == .milliseconds(40))
        #expect(sync.delay == .zero, "\(changes)")
        for (a, b) in zip([Duration.zero] + changes, changes) {
            #expect(b - a <= .milliseconds(40) && a - b <= .milliseconds(40), "\(changes)")
        }
    }

    @Test func boundedByTheMaximumAndIndependentOfTheClockOffset() {
        var sync = AudioVideoSync()
        _ = Self.run(&sync, audioDelay: .milliseconds(40), videoDelay: { _ in .seconds(2) }, updates: 40,
                     clockOffset: .seconds(-5_000))
        #expect(sync.delay == .milliseconds(400))
        var other = AudioVideoSync()
        _ = Self.run(&other, audioDelay: .milliseconds(40), videoDelay: { _ in .milliseconds(100) }, clockOffset: .seconds(77))
        #expect(other.delay == .milliseconds(60))
    }

    @Test func oneOutlierIsIgnoredAndSmallLagsChangeNothing() {
        var sync = AudioVideoSync()
        // 10 ms behind (inside the dead band), with one measurement 300 ms off.
        let changes = Self.run(&sync, audioDelay: .milliseconds(40), videoDelay: { $0 == 6 ? .milliseconds(340) : .milliseconds(50) })
        #expect(changes.isEmpty, "\(changes)")
    }

    @Test func nothingWithoutReportsOrWithAStalledStream() {
        var sync = AudioVideoSync()
        #expect(Self.run(&sync, audioDelay: .milliseconds(40), videoDelay: { _ in .milliseconds(200) },
                         reportsKnown: false).isEmpty)
        let publisher = Publisher()
        let reports = publisher.reports(at: .seconds(1))
        // The video's last frame played 2 s ago (paused): no measurement.
        let now = Duration.seconds(100)
        #expect(sync.update(audio: .init(rtpTimestamp: publisher.audioRTP(.seconds(1)), playedAt: now),
                            video: .init(rtpTimestamp: publisher.videoRTP(.seconds(1)), playedAt: now - .seconds(2)),
                            audioReport: reports.audio, videoReport: reports.video, now: now) == nil)
        #expect(sync.lastLag == nil && sync.delay == .zero)
    }
}
