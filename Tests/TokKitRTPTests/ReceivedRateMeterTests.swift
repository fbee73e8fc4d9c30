import Testing
import TokKitRTP

/// R_hat over a sliding 500 ms window of receiver time.
struct ReceivedRateMeterTests {
    /// Feeds 1200-byte packets at `rate` from `start` for `duration` µs; returns the time after the last one.
    /// Reported in one feedback message per 50 ms of arrivals (none for the messages `lost` says were lost).
    static func feed(_ meter: inout ReceivedRateMeter, rate: Int, from start: Int64, for duration: Int64,
                     lost: (Int64) -> Bool = { _ in false }) -> Int64 {
        let spacing = Int64(1200 * 8) * 1_000_000 / Int64(rate)
        var t = start
        var message = start / 50_000
        while t < start + duration {
            if t / 50_000 != message {
                meter.endFeedback()
                message = t / 50_000
            }
            if !lost(message) { meter.add(arrivalTime: t, size: 1200) }
            t += spacing
        }
        meter.endFeedback()
        return t
    }

    @Test func aSteadyRateIsMeasuredOnceAWholeWindowWasSeen() {
        var meter = ReceivedRateMeter()
        var t = Self.feed(&meter, rate: 1_000_000, from: 10_000_000, for: 400_000)
        #expect(meter.bitsPerSecond == nil, "less than a window seen")
        t = Self.feed(&meter, rate: 1_000_000, from: t, for: 1_000_000)
        let r = meter.bitsPerSecond ?? 0
        #expect(r >= 950_000 && r <= 1_050_000, "\(r)")
    }

    /// A rate that halves shows in R_hat within the window, sliding, not at the next window boundary: 250 ms after
    /// the step it is about halfway, after 500 ms all the way.
    @Test func aStepDownShowsWhileTheWindowSlides() {
        var meter = ReceivedRateMeter()
        var t = Self.feed(&meter, rate: 1_000_000, from: 0, for: 2_000_000)
        t = Self.feed(&meter, rate: 500_000, from: t, for: 250_000)
        let halfway = meter.bitsPerSecond ?? 0
        #expect(halfway >= 650_000 && halfway <= 850_000, "\(halfway)")
        t = Self.feed(&meter, rate: 500_000, from: t, for: 300_000)
        let after = meter.bitsPerSecond ?? 0
        #expect(after >= 450_000 && after <= 550_000, "\(after)")
    }

    /// Half the feedback messages lost (the way back is congested too): that is not a pause in what the path
    /// delivered.
    @Test func lostFeedbackMessagesDoNotLowerTheRate() {
        var meter = ReceivedRateMeter()
        _ = Self.feed(&meter, rate: 500_000, from: 0, for: 2_000_000) { $0 % 2 == 1 }
        let r = meter.bitsPerSecond ?? 0
        #expect(r >= 450_000 && r <= 560_000, "\(r)")
    }

    /// After a silence longer than the window only what came after it counts; a packet older than the window
    /// (reordered feedback) changes nothing.
    @Test func silenceEmptiesTheWindowAndOldPacketsAreIgnored() {
        var meter = ReceivedRateMeter()
        var t = Self.feed(&meter, rate: 2_000_000, from: 0, for: 1_000_000)
        t += 3_000_000
        t = Self.feed(&meter, rate: 200_000, from: t, for: 600_000)
        let low = meter.bitsPerSecond ?? 0
        #expect(low >= 180_000 && low <= 220_000, "\(low)")
        meter.add(arrivalTime: 500_000, size: 100_000)
        meter.add(arrivalTime: 510_000, size: 100_000)
        meter.endFeedback()
        #expect(meter.bitsPerSecond == low)
    }
}
