import Testing
import TokKitStreaming

/// The playout delay, fed with completion times chosen by the test (no clock): a 30 fps stream whose frames
/// complete on time or late by a pattern, rendered in order at max(render time, completion, previous render).
struct VideoPlayoutTimingTests {
    static let frameTicks: UInt32 = 3_000  // 30 fps at 90 kHz
    static let frameInterval: Duration = .nanoseconds(33_333_333)

    struct Run {
        var timing = VideoPlayoutTiming()
        var freezes = FreezeDetector()
        var unbuffered = FreezeDetector()
        var lastRender: Duration = .zero
        var lastUnbuffered: Duration = .zero
        var rtp: UInt32
        var sent: Duration = .seconds(100)
        var renders: [Duration] = []

        init(firstTimestamp: UInt32 = 1_000) { rtp = firstTimestamp }

        /// One frame `transit` after it was sent (a fixed path delay of 20 ms plus `late`).
        mutating func frame(late: Duration = .zero) {
            let completed = sent + .milliseconds(20) + late
            let scheduled = timing.renderTime(rtpTimestamp: rtp, completedAt: completed)
            let rendered = max(scheduled, completed, lastRender)
            freezes.frameRendered(at: rendered)
            // Without a delay: each frame when it completes, but never before the one it follows.
            lastUnbuffered = max(completed, lastUnbuffered)
            unbuffered.frameRendered(at: lastUnbuffered)
            renders.append(rendered)
            lastRender = rendered
            rtp &+= VideoPlayoutTimingTests.frameTicks
            sent += VideoPlayoutTimingTests.frameInterval
        }
    }

    @Test func framesOnTimeGetNoDelay() {
        var run = Run()
        for _ in 0..<300 { run.frame() }
        #expect(run.timing.targetDelay <= .milliseconds(5) && run.timing.delay <= .milliseconds(5))
        // Rendered at the frame rate, 20 ms path plus at most one 5 ms step after sending.
        #expect(run.freezes.freezeCount == 0)
    }

    /// One frame in five waits 170 ms for a NACK repair (5 % loss, frames of four packets, 100 ms round trip and
    /// the lab's jitter).
    /// Rendered as they complete, the gap after each repaired frame crosses the freeze threshold (183 ms at
    /// 30 fps); with the playout delay, once it has grown, none does.
    @Test func aDelayAsLongAsTheRepairsHidesThem() {
        var run = Run()
        var random = SeededRandom(seed: 7)
        for _ in 0..<1_800 { run.frame(late: random.next() % 5 == 0 ? .milliseconds(170) : .zero) }
        #expect(run.timing.targetDelay >= .milliseconds(170) && run.timing.targetDelay <= .milliseconds(180))
        #expect(run.timing.delay == run.timing.targetDelay)
        // The delay grows at 100 ms a second: the first two seconds may freeze, the rest must not.
        var settled = FreezeDetector()
        for time in run.renders.dropFirst(60) { settled.frameRendered(at: time) }
        #expect(run.freezes.freezeCount > 0, "the delay was still growing in the first seconds")
        #expect(settled.freezeCount == 0, "\(settled.freezeCount) freezes after settling")
        #expect(run.unbuffered.freezeCount > 5, "the pattern freezes without a delay")
    }

    @Test func theDelayChangesAtMostAtTheConfiguredRate() {
        var run = Run()
        for _ in 0..<30 { run.frame() }
        var previous = run.timing.delay
        // Every frame late from now on by 300 ms, then by nothing again.
        for i in 0..<120 {
            run.frame(late: i < 60 ? .milliseconds(300) : .zero)
            let step = run.timing.delay - previous
            #expect(step <= .milliseconds(4) && step >= .milliseconds(-4), "frame \(i): \(step)")
            previous = run.timing.delay
        }
    }

    @Test func theDelayStaysWithinItsBounds() {
        var run = Run()
        run.timing = VideoPlayoutTiming(.init(minimumDelay: .milliseconds(50), maximumDelay: .milliseconds(200)))
        for _ in 0..<100 { run.frame() }
        #expect(run.timing.delay == .milliseconds(50))
        for i in 0..<1_000 { run.frame(late: i % 2 == 0 ? .milliseconds(900) : .zero) }
        #expect(run.timing.targetDelay == .milliseconds(200) && run.timing.delay == .milliseconds(200))
    }

    /// A path that becomes 300 ms slower for good: every frame looks late at first, then the fastest transit of
    /// the window is the new path and the delay goes back down.
    @Test func aSlowerPathBecomesTheNewReference() {
        var run = Run()
        for _ in 0..<300 { run.frame() }
        for _ in 0..<300 { run.frame(late: .milliseconds(300)) }
        #expect(run.timing.targetDelay >= .milliseconds(300))
        for _ in 0..<(30 * 30) { run.frame(late: .milliseconds(300)) }  // 30 s: past the 16 s window
        #expect(run.timing.targetDelay <= .milliseconds(5) && run.timing.delay <= .milliseconds(5))
    }

    @Test func theRTPClockWrapsWithoutAJump() {
        var run = Run(firstTimestamp: UInt32.max - 30 * Self.frameTicks)
        for _ in 0..<120 { run.frame() }
        let intervals: [Duration] = zip(run.renders.dropFirst(), run.renders).map { $0 - $1 }
        #expect(intervals.allSatisfy { $0 >= .milliseconds(28) && $0 <= .milliseconds(39) }, "\(intervals)")
    }

    /// Timestamps from the network that jump as far forward as they can every frame: the unwrapped clock grows
    /// past what Int64 nanoseconds hold, and the timing neither traps nor holds a frame longer than its bound.
    @Test func hostileTimestampJumpsNeitherTrapNorHoldFrames() {
        var timing = VideoPlayoutTiming()
        var rtp: UInt32 = 0
        var time: Duration = .seconds(100)
        for _ in 0..<60_000 {
            rtp &+= UInt32(Int32.max)
            time += .milliseconds(33)
            let render = timing.renderTime(rtpTimestamp: rtp, completedAt: time)
            #expect(render <= time + timing.configuration.maximumDelay)
        }
    }

    /// A sender that starts over with a timestamp from long ago: its frames would all look seconds late; the
    /// timing starts over instead of holding them.
    @Test func aTimestampJumpStartsOver() {
        var run = Run()
        for _ in 0..<60 { run.frame() }
        run.rtp &-= 90_000 * 10
        for _ in 0..<60 { run.frame() }
        #expect(run.timing.delay <= .milliseconds(10))
        let last = run.renders.suffix(30)
        let intervals: [Duration] = zip(last.dropFirst(), last).map { $0 - $1 }
        #expect(intervals.allSatisfy { $0 <= .milliseconds(40) }, "\(intervals)")
    }
}

/// A fixed sequence of pseudo-random numbers (SplitMix64): the same losses on every run.
struct SeededRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
