import Testing
import TokKitRTP
import TokKitRecording

/// The move of a sender's clock mapping between its reference sender report and later ones, with values worked
/// out by hand.
@Suite struct SenderClockFollowerTests {
    /// NTP 3 900 000 000.5 s.
    static let ntp = NTPTimestamp(rawValue: (3_900_000_000 << 32) | 0x8000_0000)

    /// The NTP timestamp `milliseconds` after ``ntp``.
    static func ntp(after milliseconds: Int) -> NTPTimestamp {
        let nanoseconds = 3_900_000_000 * 1_000_000_000 + 500_000_000 + Int64(milliseconds) * 1_000_000
        let seconds = UInt64(nanoseconds / 1_000_000_000), rest = UInt64(nanoseconds % 1_000_000_000)
        return NTPTimestamp(rawValue: seconds << 32 | ((rest << 32) / 1_000_000_000 + 1))
    }

    @Test func aSenderWhoseMappingStaysNeedsNoCorrection() throws {
        var follower = SenderClockFollower(reference: SenderClock(ntp: Self.ntp, rtpTimestamp: 1_000, clockRate: 48_000))
        // Reports 1, 2 and 10 s later, with the RTP clock running at 48 kHz against the NTP clock (within the
        // rounding of the NTP fraction: under a microsecond).
        for seconds in [1, 2, 10] {
            let later = SenderClock(ntp: Self.ntp(after: seconds * 1000), rtpTimestamp: 1_000 &+ UInt32(48_000 * seconds),
                                    clockRate: 48_000)
            let maybe = follower.shift(after: later)
            let shift = try #require(maybe)
            #expect(abs(shift / .nanoseconds(1)) < 1_000, "\(shift)")
        }
    }

    /// A TokKit sender whose capture clock estimate moved 8 ms back moves its reports' origin 384 ticks forward:
    /// the same RTP timestamp now stands for a sender instant 8 ms earlier.
    @Test func anOriginMoveIsTheCorrection() throws {
        var follower = SenderClockFollower(reference: SenderClock(ntp: Self.ntp, rtpTimestamp: 1_000, clockRate: 48_000))
        let moved = SenderClock(ntp: Self.ntp(after: 5_000), rtpTimestamp: 1_000 + 48 * 5_000 + 384, clockRate: 48_000)
        let moveShift = follower.shift(after: moved)
        let shift = try #require(moveShift)
        #expect(abs((shift + .milliseconds(8)) / .nanoseconds(1)) < 1_000, "\(shift)")
        // Across the RTP wrap, video (90 kHz), a move the other way: 5 ms later.
        let wrapAt = UInt32.max - 44_999  // 0.5 s before the wrap
        var video = SenderClockFollower(reference: SenderClock(ntp: Self.ntp, rtpTimestamp: wrapAt, clockRate: 90_000))
        let later = SenderClock(ntp: Self.ntp(after: 2_000), rtpTimestamp: wrapAt &+ 180_000 &- 450, clockRate: 90_000)
        let laterShift = video.shift(after: later)
        let videoShift = try #require(laterShift)
        #expect(abs((videoShift - .milliseconds(5)) / .nanoseconds(1)) < 1_000, "\(videoShift)")
    }

    /// Reports moving by noise (a forwarding server's reports, ±1.5 ms) change nothing; one outlier among them is
    /// outvoted; a move that persists is followed from its second report.
    @Test func reportNoiseIsNotFollowed() throws {
        var follower = SenderClockFollower(reference: SenderClock(ntp: Self.ntp, rtpTimestamp: 1_000, clockRate: 90_000))
        /// A report `seconds` after the reference whose mapping moved `moveMs` (its timestamps stand for later
        /// sender instants).
        func report(_ seconds: Int, moved moveMs: Int) -> SenderClock {
            SenderClock(ntp: Self.ntp(after: seconds * 1_000 + moveMs), rtpTimestamp: 1_000 &+ UInt32(90_000 * seconds),
                        clockRate: 90_000)
        }
        func ms(_ d: Duration?) -> Int { Int(((d ?? .seconds(99)) / .microseconds(1)).rounded() / 1_000) }
        var followed: [Int] = []
        for (i, move) in [1, -1, 1, 0, 30, 1, -1].enumerated() { followed.append(ms(follower.shift(after: report(i + 1, moved: move)))) }
        #expect(followed == [0, 0, 0, 0, 0, 0, 0], "noise and one 30 ms outlier: \(followed)")
        let moved = [8, 8, 8].enumerated().map { ms(follower.shift(after: report(10 + $0.offset, moved: $0.element))) }
        #expect(moved == [0, 8, 8], "a move of 8 ms: \(moved)")
    }

    @Test func aMoveBeyondTheLimitIsNotFollowed() throws {
        var follower = SenderClockFollower(reference: SenderClock(ntp: Self.ntp, rtpTimestamp: 1_000, clockRate: 48_000))
        // A restarted sender's report (other timestamps altogether), and a clock jump of 2 s.
        let restarted = follower.shift(after: SenderClock(ntp: Self.ntp(after: 1_000), rtpTimestamp: 0x8000_0000, clockRate: 48_000))
        let jumped = follower.shift(after: SenderClock(ntp: Self.ntp(after: 3_000), rtpTimestamp: 1_000 + 48_000, clockRate: 48_000))
        #expect(restarted == nil && jumped == nil)
        #expect(follower.reportsIgnored == 2)
        let near = follower.shift(after: SenderClock(ntp: Self.ntp(after: 1_000), rtpTimestamp: 1_000 + 48_000 - 48 * 900,
                                                     clockRate: 48_000))
        let within = try #require(near, "900 ms is within the limit")
        #expect(abs((within - .milliseconds(900)) / .nanoseconds(1)) < 1_000, "\(within)")
        #expect(follower.reportsIgnored == 2)
    }
}
