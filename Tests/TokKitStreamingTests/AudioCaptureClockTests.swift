import Testing
import TokKitMedia
@testable import TokKitStreaming

/// The capture instants an audio publisher stamps its packets with (``AudioCaptureClock`` in ``AudioEncodeStage``),
/// against a simulated sound card whose samples' capture times are known exactly: handed over promptly, late (a
/// loaded machine: several periods at once), after a first late handover, and across an overrun that loses samples.
@Suite("AudioCaptureClock") struct AudioCaptureClockTests {
    /// A sound card on an exact 48 kHz sample clock starting at `origin`, handing over 10 ms periods at ticks that
    /// come `lateness(tick)` after they are due, every period complete by then at once, at most `backlog` of them
    /// (older samples are lost, as in an overrun). Records the true capture time of every sample handed over.
    struct SimulatedCard {
        let origin: Duration
        let backlog = 8
        /// Capture time of each handed-over period's first sample, in handover order.
        var periodCaptures: [Duration] = []
        var captured: Int64 = 0

        /// The handovers of one tick at `now`: each a period's samples count, with its handover time.
        mutating func tick(at now: Duration) -> [Duration] {
            let due = (now - origin).nanoseconds * 48 / 1_000_000
            captured = max(captured, due - Int64(backlog) * 480)
            var handovers: [Duration] = []
            while captured + 480 <= due {
                periodCaptures.append(origin + .nanoseconds(captured * 1_000_000 / 48))
                captured += 480
                handovers.append(now)
            }
            return handovers
        }
    }

    /// Runs `seconds` of a card through an encode stage; `lateness(k)` is how late tick `k` (due at
    /// `origin + (k + 1) × 10 ms`) comes. Returns each packet's timestamp error against its first sample's true
    /// capture instant (ms, on the sender reports' mapping: the stage's mapping moved by its origin shift when the
    /// packet went out), and the steps between consecutive packets.
    static func run(seconds: Int, lateness: (Int) -> Duration) throws -> (errors: [Double], steps: [UInt32]) {
        let (errors, steps, _) = try runWithShifts(seconds: seconds, lateness: lateness)
        return (errors, steps)
    }

    /// ``run(seconds:lateness:)``, also returning the stage's origin shift as each packet went out.
    static func runWithShifts(seconds: Int, lateness: (Int) -> Duration) throws
        -> (errors: [Double], steps: [UInt32], shifts: [UInt32]) {
        let origin = Duration.seconds(1_000)
        let mapping = RTPClockMapping(clockRate: 48_000, offset: 123_456_789)
        let clock = TestClock()
        var stage = try AudioEncodeStage(clockMapping: mapping, settings: AudioEncodeSettings(), now: { clock.now })
        var card = SimulatedCard(origin: origin)
        let period = [Int16](repeating: 100, count: 480)
        var timestamps: [UInt32] = []
        var shifts: [UInt32] = []
        var lastTickTime = origin
        for k in 0..<(seconds * 100) {
            let now = max(lastTickTime, origin + .milliseconds(10 * (k + 1)) + lateness(k))
            lastTickTime = now
            for handover in card.tick(at: now) {
                clock.now = handover
                period.withUnsafeBufferPointer { samples in
                    stage.write(samples, channels: 1, enabled: true) { _, timestamp, _ in timestamps.append(timestamp) }
                }
                while shifts.count < timestamps.count { shifts.append(stage.originShift) }
            }
        }
        var errors: [Double] = []
        for (n, timestamp) in timestamps.enumerated() {
            let truth = mapping.timestamp(at: card.periodCaptures[2 * n])
            errors.append(Double(Int32(bitPattern: timestamp &- shifts[n] &- truth)) / 48)
        }
        return (errors, zip(timestamps, timestamps.dropFirst()).map { $1 &- $0 }, shifts)
    }

    final class TestClock: @unchecked Sendable {
        var now = Duration.zero
    }

    /// A fixed pseudo-random sequence (no dependence on the run).
    struct Lateness {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        mutating func next(below bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
    }

    @Test func promptHandoversAreStampedWithTheirCaptureInstants() throws {
        let (errors, steps) = try Self.run(seconds: 3) { _ in .zero }
        #expect(errors.count == 150)
        #expect(errors.allSatisfy { abs($0) <= 0.1 }, "\(errors.filter { abs($0) > 0.1 })")
        #expect(steps.allSatisfy { $0 == 960 })
    }

    /// A loaded machine: the first handover 60 ms late, then a tick in ten 20-70 ms late (several periods handed
    /// over at once), the others 0-3 ms. Every packet after the first second is stamped within the tolerance of
    /// its capture instant (the clock before 2026-11-28, which took the first handover's time and re-anchored only
    /// on a 100 ms drift, kept a 60 ms error for good), and the timestamps run on by 960 but for the few
    /// corrections.
    @Test func lateHandoversDoNotMoveTheTimestamps() throws {
        var random = Lateness()
        let (errors, steps) = try Self.run(seconds: 10) { k in
            if k == 0 { return .milliseconds(60) }
            return .milliseconds(random.next(below: 10) == 0 ? 20 + random.next(below: 50) : random.next(below: 4))
        }
        let settled = errors.dropFirst(50)
        print("late handovers: first second's errors \(errors.prefix(50).map { Int($0.rounded()) }) ms, later from \(settled.min()!) to \(settled.max()!) ms")
        #expect(errors.count >= 490)
        #expect(settled.allSatisfy { abs($0) <= 5.1 }, "\(settled.filter { abs($0) > 5.1 })")
        #expect(steps.filter { $0 != 960 }.count <= 3, "\(steps.filter { $0 != 960 })")
        // Never back, never overlapping (a receiver drops a repeated timestamp; the first version repeated three).
        #expect(steps.allSatisfy { Int32(bitPattern: $0) >= 960 }, "\(steps.filter { Int32(bitPattern: $0) < 960 })")
    }

    /// A tick 150 ms late: the card keeps 80 ms and loses 80 ms of samples. Within the clock's window (0.25 s) the
    /// timestamps move forward by what was lost (a gap, as the receiver should hear it), instead of staying 80 ms
    /// off from then on.
    @Test func samplesLostInAnOverrunMoveTheTimestampsOn() throws {
        let (errors, steps) = try Self.run(seconds: 6) { k in k == 200 ? .milliseconds(150) : .milliseconds(k % 3) }
        print("overrun: errors around it \(errors[95...160].map { Int($0.rounded()) }) ms")
        #expect(errors.prefix(100).allSatisfy { abs($0) <= 5.1 })
        // The stall ends at 2.16 s (packet 108); 0.25 s later is packet 121.
        #expect(errors.dropFirst(122).allSatisfy { abs($0) <= 5.1 }, "\(errors.dropFirst(122).filter { abs($0) > 5.1 })")
        #expect(steps.contains { $0 > 960 + 48 * 60 }, "a forward step over the lost samples")
        #expect(steps.allSatisfy { Int32(bitPattern: $0) >= 960 }, "\(steps.filter { Int32(bitPattern: $0) < 960 })")
    }

    /// Under heavy load the promptest handover of a quarter second is now and then a few ms late, so the estimate
    /// moves back and forth by 5-8 ms: the stream stays continuous (every step 960), and the reports' origin shift
    /// follows the estimate to and fro instead of ratcheting up (each backward move taken as a shift, each forward
    /// one as a gap, would grow it without bound).
    @Test func backAndForthMovesTheShiftNotTheStream() throws {
        var random = Lateness()
        // Half-second stretches in which every tick is 6-8 ms late (never a whole period: that would hand over the
        // period just completed, an exact bound), between prompt ones.
        let (errors, steps, shifts) = try Self.runWithShifts(seconds: 20) { k in
            (k / 50) % 2 == 1 ? .milliseconds(6 + random.next(below: 3)) : .milliseconds(random.next(below: 2))
        }
        let settled = errors.dropFirst(50)
        print("back and forth: steps other than 960 \(steps.filter { $0 != 960 }), errors \(settled.min()!) to \(settled.max()!) ms, shift up to \(shifts.max()! / 48) ms")
        #expect(steps.allSatisfy { Int32(bitPattern: $0) >= 960 }, "\(steps.filter { Int32(bitPattern: $0) < 960 })")
        #expect(steps.filter { $0 != 960 }.count <= 2, "one forward step at the first late stretch, then continuous: \(steps.filter { $0 != 960 })")
        #expect(settled.allSatisfy { abs($0) <= 8.1 }, "\(settled.filter { abs($0) > 8.1 })")
        #expect(shifts.contains { $0 > 0 }, "the prompt stretches moved the origin back")
        #expect(shifts.max()! <= 48 * 9, "the shift stays within the largest backward move")
    }

    @Test func theEstimateFollowsTheLowestBoundOfTheWindow() {
        var clock = AudioCaptureClock()
        #expect(clock.captureTime(ofSample: 0) == nil)
        clock.handOver(480, at: .milliseconds(1_050))  // late: bounds the base at 1040 ms
        #expect(clock.captureTime(ofSample: 0) == .milliseconds(1_040))
        clock.handOver(480, at: .milliseconds(1_020))  // prompt (a test clock may go back): base 1000 ms
        #expect(clock.captureTime(ofSample: 480) == .milliseconds(1_010))
        // Handovers 40 ms later than that for over a second: the prompt one has left the window (0.25 s).
        for k in 0..<150 { clock.handOver(480, at: .milliseconds(1_070 + 10 * k)) }
        #expect(clock.captureTime(ofSample: 0) == .milliseconds(1_040))
        // A pause longer than the window: the estimate starts over from the next handover.
        clock.handOver(480, at: .seconds(10))
        #expect(clock.captureTime(ofSample: clock.samplesHandedOver) == .seconds(10))
    }
}
