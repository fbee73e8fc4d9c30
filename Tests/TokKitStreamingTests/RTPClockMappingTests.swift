import Testing
import TokKitMedia
@testable import TokKitStreaming

@Suite("RTPClockMapping") struct RTPClockMappingTests {
    @Test func videoTimestampsAdvanceAt90kHz() {
        let m = RTPClockMapping(clockRate: 90_000, offset: 1000)
        let t0 = Duration.seconds(12_345)
        #expect(m.timestamp(at: t0 + .milliseconds(1000)) &- m.timestamp(at: t0) == 90_000)
        #expect(m.timestamp(at: t0 + .microseconds(33_333)) &- m.timestamp(at: t0) == 2_999)
    }

    @Test func roundTripsThroughWrapAroundAndLongUptime() {
        // An offset that makes the timestamp wrap within the interval, and 200 days of uptime.
        let m = RTPClockMapping(clockRate: 90_000, offset: .max - 45_000)
        let base = Duration.seconds(200 * 86_400)
        for ms in stride(from: -5_000, through: 5_000, by: 250) {
            let t = base + .milliseconds(ms)
            let back = m.time(of: m.timestamp(at: t), near: base + .milliseconds(40))
            #expect(abs((back - t).nanoseconds) < 20_000, "at \(ms) ms: \(back - t)")
        }
    }

    @Test func audioMappingUses48kHz() {
        let m = RTPClockMapping(clockRate: 48_000, offset: 7)
        #expect(m.timestamp(at: .milliseconds(20)) == 7 &+ 960)
    }
}
