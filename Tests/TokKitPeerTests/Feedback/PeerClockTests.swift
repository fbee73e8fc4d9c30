import Testing
@testable import TokKitPeer
import TokKitRTP

@Suite struct PeerClockTests {
    @Test func ntpTimeFollowsTheMonotonicClockFromItsOrigin() {
        let time = PeerClock.ManualTime(nanoseconds: 0)
        let clock = PeerClock.manual(time)
        #expect(clock.ntp(at: 0) == clock.ntpOrigin)
        #expect(clock.ntp(at: 1_500_000_000).rawValue == clock.ntpOrigin.rawValue + (1 << 32) + (1 << 31))
        time.advance(by: .milliseconds(250))
        time.advance(by: .seconds(-5))  // ignored
        #expect(clock.now() == 250_000_000)
    }

    @Test func theSystemClockMapsNowToTheWallClock() {
        let clock = PeerClock.system
        let ntp = clock.ntp(at: clock.now())
        let unixSeconds = UInt64(ntp.seconds) - NTPTimestamp.unixEpochOffset
        #expect(unixSeconds > 1_700_000_000 && unixSeconds < 4_000_000_000)
    }
}
