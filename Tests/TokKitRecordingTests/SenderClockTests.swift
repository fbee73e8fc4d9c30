import Testing
import TokKitRTP
import TokKitRecording

/// The sender-report mapping and the anchor that places a publisher's streams on one timeline, with values
/// worked out by hand.
@Suite struct SenderClockTests {
    /// NTP 3 900 000 000.5 s.
    static let ntp = NTPTimestamp(rawValue: (3_900_000_000 << 32) | 0x8000_0000)
    static let base: Int64 = 3_900_000_000 * 1_000_000_000 + 500_000_000

    @Test func mapsTimestampsAroundTheReport() {
        let clock = SenderClock(ntp: Self.ntp, rtpTimestamp: 1_000, clockRate: 90_000)
        #expect(clock.ntpNanoseconds == Self.base)
        #expect(clock.senderTime(of: 1_000) == Self.base)
        #expect(clock.senderTime(of: 91_000) == Self.base + 1_000_000_000, "one second later")
        #expect(clock.senderTime(of: 991) == Self.base - 100_000, "9 ticks before: 100 µs earlier")
        #expect(clock.senderTime(of: 1_001) == Self.base + 11_111, "one tick: 11.1 µs, rounded down")
        #expect(clock.senderTime(of: 999) == Self.base - 11_112, "one tick before, rounded down too")
    }

    @Test func takesTheNearestWrap() {
        let clock = SenderClock(ntp: Self.ntp, rtpTimestamp: UInt32.max - 899, clockRate: 90_000)
        #expect(clock.senderTime(of: 8_100) == Self.base + 100_000_000, "9000 ticks later across the wrap")
        let audio = SenderClock(ntp: Self.ntp, rtpTimestamp: 4_800, clockRate: 48_000)
        #expect(audio.senderTime(of: UInt32.max - 4_799) == Self.base - 200_000_000, "9600 ticks earlier across the wrap")
    }

    @Test func placesTheOtherStreamOfTheSenderFromTheFirst() {
        // Audio's report says RTP 5200 is at NTP base; its first packet (RTP 10 000, 100 ms after the report's
        // instant) arrived 300 ms into the archive. Video's report: RTP 500 000 at base + 250 ms.
        let audio = SenderClock(ntp: Self.ntp, rtpTimestamp: 5_200, clockRate: 48_000)
        let video = SenderClock(ntp: NTPTimestamp(rawValue: Self.ntp.rawValue + (1 << 30)), rtpTimestamp: 500_000,
                                clockRate: 90_000)
        let anchor = SenderTimeAnchor(offset: .milliseconds(300), timestamp: 10_000, clock: audio)
        #expect(anchor.senderTime == Self.base + 100_000_000)
        // A video frame captured 50 ms after video's report instant: base + 300 ms, 200 ms after the audio packet.
        #expect(anchor.offset(of: 504_500, on: video) == .milliseconds(500))
        // Audio itself stays where its arrival put it, and moves with its own clock.
        #expect(anchor.offset(of: 10_000, on: audio) == .milliseconds(300))
        #expect(anchor.offset(of: 10_960, on: audio) == .milliseconds(320))
        // A frame captured before the anchor's instant lands before it.
        #expect(anchor.offset(of: 495_500, on: video) == .milliseconds(400))
    }
}
