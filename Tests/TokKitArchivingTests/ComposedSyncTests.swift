import Testing
import TokKitRTP
import TokKitRecording

@testable import TokKitArchiving

/// The placement of a composed stream's audio and pictures by its sender's clock, with values worked out by hand.
@Suite struct ComposedSyncTests {
    /// NTP 3 900 000 000 s.
    static let ntp = NTPTimestamp(rawValue: 3_900_000_000 << 32)
    /// NTP 3 900 000 000.5 s.
    static let ntpHalf = NTPTimestamp(rawValue: (3_900_000_000 << 32) | 0x8000_0000)

    @Test func durationsBecome48kHzTicksRoundedDown() {
        #expect(ComposedSync.ticks(.milliseconds(20)) == 960)
        #expect(ComposedSync.ticks(.milliseconds(-20)) == -960)
        #expect(ComposedSync.ticks(.seconds(2) + .microseconds(500)) == 96_024)
        #expect(ComposedSync.ticks(.nanoseconds(1)) == 0)
        #expect(ComposedSync.ticks(.nanoseconds(-1)) == -1, "floor, not towards zero")
        #expect(ComposedSync.ticks(.milliseconds(-70)) == -3_360)
        #expect(ComposedSync.ticks(.zero) == 0)
    }

    @Test func theNewestAudioPlaysTheDelayAfterItsArrival() {
        // Asked at 1000 ms; the newest packet (RTP 10 000) arrived at 990 ms and plays 80 ms later, at 1070 ms:
        // 70 ms (3360 ticks) after the anchor, so the anchor is RTP 6640.
        let sync = ComposedSync(at: .milliseconds(1_000), newestAudio: 10_000, arrival: .milliseconds(990),
                                delay: .milliseconds(80))
        #expect(sync.archiveTime == .milliseconds(1_000) && sync.audioTimestamp == 6_640)
        #expect(sync.audioTimestamp(at: .milliseconds(1_070)) == 10_000)
        #expect(sync.audioTimestamp(at: .milliseconds(1_020)) == 7_600, "the next period: 960 ticks on")
        #expect(sync.audioTimestamp(at: .milliseconds(980)) == 5_680, "the one before")
        // The same across the 32-bit wrap: RTP 1000 − 3360.
        let wrapped = ComposedSync(at: .milliseconds(1_000), newestAudio: 1_000, arrival: .milliseconds(990),
                                   delay: .milliseconds(80))
        #expect(wrapped.audioTimestamp == 4_294_964_936)
        #expect(wrapped.audioTimestamp(at: .milliseconds(1_060)) == 520)
    }

    @Test func picturesAreDueWhenTheAudioOfTheirCaptureInstantPlays() {
        // Anchor: archive 1000 ms ↔ audio RTP 6640, which audio's report puts at NTP S.
        let sync = ComposedSync(archiveTime: .milliseconds(1_000), audioTimestamp: 6_640)
        let audio = SenderClock(ntp: Self.ntp, rtpTimestamp: 6_640, clockRate: 48_000)
        // Video's report: RTP 90 000 at S + 0.5 s.
        let video = SenderClock(ntp: Self.ntpHalf, rtpTimestamp: 90_000, clockRate: 90_000)
        #expect(sync.videoTime(of: 90_000, audio: audio, video: video) == .milliseconds(1_500))
        #expect(sync.videoTime(of: 99_000, audio: audio, video: video) == .milliseconds(1_600), "100 ms of video later")
        #expect(sync.videoTime(of: 0, audio: audio, video: video) == .milliseconds(500), "a second of video earlier")
        // An audio report elsewhere on the same clock changes nothing: RTP 54 640 is S + 1 s.
        let later = SenderClock(ntp: NTPTimestamp(rawValue: 3_900_000_001 << 32), rtpTimestamp: 54_640, clockRate: 48_000)
        #expect(sync.videoTime(of: 99_000, audio: later, video: video) == .milliseconds(1_600))
    }

    @Test func aPictureTheReportsPutFarFromItsArrivalIsShownAtItsArrival() {
        let sync = ComposedSync(archiveTime: .milliseconds(1_000), audioTimestamp: 6_640)
        let audio = SenderClock(ntp: Self.ntp, rtpTimestamp: 6_640, clockRate: 48_000)
        let video = SenderClock(ntp: Self.ntpHalf, rtpTimestamp: 90_000, clockRate: 90_000)
        // Due at 1600 ms.
        #expect(sync.pictureTime(of: 99_000, arrival: .milliseconds(1_540), audio: audio, video: video) == .milliseconds(1_600))
        #expect(sync.pictureTime(of: 99_000, arrival: .milliseconds(700), audio: audio, video: video) == .milliseconds(1_600),
                "0.9 s of shift is believed")
        #expect(sync.pictureTime(of: 99_000, arrival: .milliseconds(100), audio: audio, video: video) == .milliseconds(100),
                "1.5 s later than its arrival: not believed")
        #expect(sync.pictureTime(of: 99_000, arrival: .milliseconds(2_700), audio: audio, video: video) == .milliseconds(2_700),
                "1.1 s before its arrival: not believed")
    }

    @Test func samplesBetweenTwoTimestampsAreSignedAndWrap() {
        #expect(ComposedSync.samples(from: 100, to: 160) == 60)
        #expect(ComposedSync.samples(from: 160, to: 100) == -60)
        #expect(ComposedSync.samples(from: UInt32.max - 9, to: 10) == 20)
        #expect(ComposedSync.samples(from: 10, to: UInt32.max - 9) == -20)
    }

    @Test func theAnchorFollowsADriftOnlyBeyondTheBoundAMillisecondAtATime() {
        // Anchor: archive 1000 ms ↔ RTP 6640, so the newest packet RTP 10 000, arrived at 990 ms, sits exactly.
        var sync = ComposedSync(at: .milliseconds(1_000), newestAudio: 10_000, arrival: .milliseconds(990))
        #expect(sync.follow(at: .milliseconds(1_000), newestAudio: 10_000, arrival: .milliseconds(990)) == 0)
        // 20 ms late (RTP 10 000 arrived 20 ms later than the anchor assumed): within the bound, left alone.
        #expect(sync.drift(at: .milliseconds(1_000), newestAudio: 10_000, arrival: .milliseconds(1_010)) == 960)
        #expect(sync.follow(at: .milliseconds(1_000), newestAudio: 10_000, arrival: .milliseconds(1_010)) == 0)
        #expect(sync.audioTimestamp == 6_640 && !sync.following)
        // 40 ms late (a slow sender): moved back 48 ticks per call (a millisecond of silence) until within 5 ms.
        #expect(sync.follow(at: .milliseconds(1_000), newestAudio: 10_000, arrival: .milliseconds(1_030)) == -48)
        #expect(sync.audioTimestamp == 6_592 && sync.following)
        var moves = 1
        while moves < 100 {
            let move = sync.follow(at: .milliseconds(1_000), newestAudio: 10_000, arrival: .milliseconds(1_030))
            guard move != 0 else { break }
            #expect(move == -48)
            moves += 1
        }
        // 1920 ticks of drift, stopped at 240 or less: 35 steps of 48 (1920 − 35 × 48 = 240).
        #expect(moves == 35 && sync.audioTimestamp == 6_640 - 1_680 && !sync.following)
        // 40 ms early (a fast sender): moved forward (a millisecond of audio skipped).
        var early = ComposedSync(at: .milliseconds(1_000), newestAudio: 10_000, arrival: .milliseconds(990))
        #expect(early.follow(at: .milliseconds(1_000), newestAudio: 10_000, arrival: .milliseconds(950)) == 48)
        // A jump beyond a second (a restarted sender) is left to the placement, which chooses the anchor again.
        #expect(early.follow(at: .milliseconds(1_000), newestAudio: 10_000, arrival: .milliseconds(3_000)) == 0)
    }

    /// Simulates a sender whose sound card runs `ppm` fast (negative: slow) against the archive's clock for 30
    /// minutes: a 20 ms packet each 20 ms of its clock, 30 ms to 40 ms on the way (a fixed jitter pattern), one
    /// period of 20 ms at a time on the archive's clock. Returns the periods whose audio was not there (not arrived
    /// yet: silence, or older than the 240 ms the jitter buffer holds: skipped), the largest move of the anchor in one
    /// period and the ticks moved in all.
    static func simulate(ppm: Double, following: Bool) -> (missed: Int, largestMove: Int, moved: Int) {
        let rate = 1 + ppm / 1_000_000
        let base: UInt32 = 4_294_000_000  // wraps after about 20 s
        func arrival(_ n: Int) -> Duration {
            .nanoseconds(Int64((Double(n) * 20_000_000 / rate).rounded())) + .milliseconds(30 + (n * 7) % 11)
        }
        var n = 0
        var sync: ComposedSync?
        var missed = 0, largestMove = 0, moved = 0
        for period in 50..<(30 * 60 * 50) {
            let t = Duration.milliseconds(20 * period)
            while arrival(n + 1) <= t { n += 1 }
            let newest = base &+ UInt32(truncatingIfNeeded: 960 * n)
            guard var current = sync else {
                sync = ComposedSync(at: t, newestAudio: newest, arrival: arrival(n))
                continue
            }
            if following {
                let move = current.follow(at: t, newestAudio: newest, arrival: arrival(n))
                largestMove = max(largestMove, abs(move))
                moved += move
            }
            sync = current
            let behind = ComposedSync.samples(from: current.audioTimestamp(at: t), to: newest)
            if behind < 0 || behind > 11_520 { missed += 1 }
        }
        return (missed, largestMove, moved)
    }

    @Test(arguments: [100.0, -100.0])
    func audioKeepsPlayingFromASenderDrifting100ppmFor30Minutes(ppm: Double) {
        // 100 ppm over 30 minutes: 180 ms, 8640 ticks, more than the 80 ms delay or the 240 ms buffer allow.
        let fixed = Self.simulate(ppm: ppm, following: false)
        #expect(fixed.missed > 1_000, "a fixed anchor loses the audio (the simulation can fail): \(fixed.missed) periods")
        let followed = Self.simulate(ppm: ppm, following: true)
        #expect(followed.missed == 0)
        #expect(followed.largestMove == ComposedSync.driftStep, "a millisecond at a time, never a 200 ms drop")
        // Moved by the drift: fast, audio skipped (positive); slow, silence inserted; within the bound's 30 ms.
        let drift = Int(ppm * 48_000 * 1_800 / 1_000_000)
        #expect(abs(followed.moved - drift) <= ComposedSync.driftBound, "moved \(followed.moved), drift \(drift)")
    }
}
