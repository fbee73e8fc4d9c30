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
}
