import Testing
import TokKitRTP

@Suite struct NTPTimestampTests {
    @Test func convertsUnixTimeAndCompactForms() {
        let t = NTPTimestamp(unixSeconds: 0, nanoseconds: 500_000_000)
        #expect(t.seconds == 2_208_988_800)
        #expect(t.fraction == 0x8000_0000)
        #expect(t.compact == UInt32(truncatingIfNeeded: (UInt64(2_208_988_800) << 16) | 0x8000))
        #expect(NTPTimestamp.compact(.milliseconds(1500)) == 0x1_8000)
        #expect(NTPTimestamp.compact(.seconds(-1)) == 0)
        #expect(NTPTimestamp.compact(.seconds(70_000)) == .max)
    }
}
