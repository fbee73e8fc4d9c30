import Testing
import TokKitRecording

@Suite struct StreamTimelineTests {
    @Test func videoTimestampsMapFromTheStartOffsetAcrossTheWrap() {
        var timeline = StreamTimeline.video(startOffset: .milliseconds(1500))
        let first: UInt32 = 0xFFFF_F000  // wraps after 4096 ticks (45 ms)
        #expect(timeline.admit(rtpTimestamp: first, isKeyFrame: true) == .write(at: .milliseconds(1500)))
        #expect(timeline.admit(rtpTimestamp: first &+ 3000, isKeyFrame: false) == .write(at: .milliseconds(1533)))
        #expect(timeline.admit(rtpTimestamp: first &+ 6000, isKeyFrame: false) == .write(at: .milliseconds(1566)))
        // Ten hours later, after many wraps of the 32-bit clock (fed every few seconds, as a live stream is).
        var ts = first &+ 6000
        for _ in 0..<(36_000 / 4) {
            ts = ts &+ 360_000
            _ = timeline.admit(rtpTimestamp: ts, isKeyFrame: false)
        }
        #expect(timeline.admit(rtpTimestamp: ts &+ 90, isKeyFrame: false)
                == .write(at: .milliseconds(1566 + 36_000_000 + 1)))
        #expect(timeline.counters.droppedNotAfterPrevious == 0)
    }

    /// A remote stream whose every timestamp jumps almost half the 32-bit range ahead pushes the unwrapped clock
    /// about 2^31 ticks a packet: after 4.3 million packets, times past 9.2e15 ticks, where multiplying the ticks
    /// by 1000 overflowed Int64 and trapped (the recorder, and the server with it, crashed). Now it keeps counting.
    @Test func timestampsPushedFarAheadByARemoteStreamDoNotTrap() {
        var timeline = StreamTimeline.opus(startOffset: .zero)
        var ts: UInt32 = 0
        var last = Duration.zero
        for _ in 0..<4_400_000 {
            ts = ts &+ 0x7FFF_FFFF
            if case .write(let at) = timeline.admit(rtpTimestamp: ts, isKeyFrame: false) { last = at }
        }
        // 4.4e6 × (2^31 − 1) ticks at 48 kHz ≈ 1.97e11 s.
        #expect(last > .seconds(190_000_000_000) && last < .seconds(200_000_000_000), "\(last)")
    }

    @Test func opusTimestampsAndFloorDivision() {
        var timeline = StreamTimeline.opus(startOffset: .milliseconds(100))
        #expect(timeline.admit(rtpTimestamp: 1000, isKeyFrame: false) == .write(at: .milliseconds(100)))
        #expect(timeline.admit(rtpTimestamp: 1000 + 960, isKeyFrame: false) == .write(at: .milliseconds(120)))
        #expect(timeline.admit(rtpTimestamp: 1000 + 960 + 47, isKeyFrame: false) == .write(at: .milliseconds(120)),
                "47 ticks is under a millisecond")
        // A timestamp before the anchor maps before the start offset (floor, not towards zero).
        #expect(timeline.time(of: 1000 - 1) == .milliseconds(99))
        #expect(timeline.time(of: 1000 &- 48 * 100) == .zero)
    }

    @Test func videoWaitsForAKeyFrameAndDropsWhatDoesNotMoveForward() {
        var timeline = StreamTimeline.video(startOffset: .zero)
        #expect(timeline.admit(rtpTimestamp: 90_000, isKeyFrame: false) == .drop(.waitingForKeyFrame))
        #expect(timeline.admit(rtpTimestamp: 93_000, isKeyFrame: false) == .drop(.waitingForKeyFrame))
        // The first packet seen anchors the stream: the key frame 200 ms later is at 200 ms.
        #expect(timeline.admit(rtpTimestamp: 108_000, isKeyFrame: true) == .write(at: .milliseconds(200)))
        #expect(timeline.admit(rtpTimestamp: 108_000, isKeyFrame: false) == .drop(.notAfterPrevious), "a repeat")
        #expect(timeline.admit(rtpTimestamp: 105_000, isKeyFrame: false) == .drop(.notAfterPrevious), "older")
        #expect(timeline.admit(rtpTimestamp: 111_000, isKeyFrame: false) == .write(at: .milliseconds(233)))
        #expect(timeline.counters == {
            var c = StreamTimeline.Counters()
            c.admitted = 2
            c.droppedWaitingForKeyFrame = 2
            c.droppedNotAfterPrevious = 2
            return c
        }())
    }

    @Test func framesPlacedAfterTheStopInstantAreDropped() {
        var timeline = StreamTimeline.opus(startOffset: .seconds(1))
        #expect(timeline.admit(rtpTimestamp: 0, isKeyFrame: false) == .write(at: .seconds(1)))
        #expect(timeline.admit(rtpTimestamp: 48_000 * 9, isKeyFrame: false) == .write(at: .seconds(10)))
        // Stop asked at 10.5 s; packets keep arriving while the archive unsubscribes.
        timeline.stop(at: .milliseconds(10_500))
        timeline.stop(at: .seconds(12))  // a later call keeps the earlier end
        #expect(timeline.end == .milliseconds(10_500))
        #expect(timeline.admit(rtpTimestamp: 48_000 * 19 / 2, isKeyFrame: false) == .write(at: .milliseconds(10_500)),
                "exactly at the stop instant: kept")
        #expect(timeline.admit(rtpTimestamp: 48_000 * 19 / 2 + 960, isKeyFrame: false) == .drop(.afterStop))
        #expect(timeline.admit(rtpTimestamp: 48_000 * 11, isKeyFrame: false) == .drop(.afterStop))
        #expect(timeline.counters.admitted == 3)
        #expect(timeline.counters.droppedAfterStop == 2)
    }

    @Test func aKeyFrameAfterTheStopDoesNotOpenTheVideo() {
        var timeline = StreamTimeline.video(startOffset: .zero)
        timeline.stop(at: .milliseconds(100))
        #expect(timeline.admit(rtpTimestamp: 0, isKeyFrame: true) == .write(at: .zero))
        #expect(timeline.admit(rtpTimestamp: 9_000, isKeyFrame: false) == .write(at: .milliseconds(100)))
        #expect(timeline.admit(rtpTimestamp: 12_000, isKeyFrame: true) == .drop(.afterStop))
    }

    /// An Opus stream whose sender's reports moved 8 ms back after 2 s (a TokKit sender's origin move): the
    /// placement follows, 1 % of media time a packet (0.2 ms), in order, and ends exactly 8 ms earlier.
    @Test func aCorrectionIsReachedGraduallyAndInOrder() {
        var timeline = StreamTimeline.opus(startOffset: .milliseconds(500))
        var times: [Duration] = []
        for n in 0..<300 {
            if n == 100 { timeline.follow(correction: .milliseconds(-8)) }
            guard case .write(let at) = timeline.admit(rtpTimestamp: 7_000 &+ UInt32(960 * n), isKeyFrame: false) else {
                Issue.record("packet \(n) dropped")
                return
            }
            times.append(at)
        }
        for n in 1..<times.count {
            let step = times[n] - times[n - 1]
            #expect(step >= .milliseconds(19) && step <= .milliseconds(21), "packet \(n): \(step)")
        }
        #expect(times[99] == .milliseconds(500 + 99 * 20), "before the move: by RTP time")
        #expect(times[100] == .milliseconds(500 + 100 * 20 - 1), "the first step: 0.2 ms, floored to the ms")
        // 8 ms at 0.2 ms a packet: reached after 40 packets.
        #expect(times[139] == .milliseconds(500 + 139 * 20 - 8))
        #expect(times[299] == .milliseconds(500 + 299 * 20 - 8))
        #expect(timeline.correction == .milliseconds(-8))
        #expect(timeline.counters.admitted == 300 && timeline.counters.droppedNotAfterPrevious == 0)

        // And forward again (the sender's estimate came back): 5 ms, later frames placed up to 5 ms later.
        timeline.follow(correction: .milliseconds(-3))
        var last = times[299]
        for n in 300..<400 {
            guard case .write(let at) = timeline.admit(rtpTimestamp: 7_000 &+ UInt32(960 * n), isKeyFrame: false) else {
                Issue.record("packet \(n) dropped")
                return
            }
            #expect(at - last >= .milliseconds(19) && at - last <= .milliseconds(21))
            last = at
        }
        #expect(last == .milliseconds(500 + 399 * 20 - 3))
    }

    /// Video at 30 fps with a correction of +10 ms; a gap of 2 s in the stream (no frames) lets the correction be
    /// reached at once at the next frame (1 % of 2 s is 20 ms), still in order.
    @Test func videoFollowsAndAGapTakesTheCorrectionAtOnce() {
        var timeline = StreamTimeline.video(startOffset: .zero)
        #expect(timeline.admit(rtpTimestamp: 0, isKeyFrame: true) == .write(at: .zero))
        timeline.follow(correction: .milliseconds(10))
        // The next frame (33.3 ms later): 0.33 ms of correction.
        #expect(timeline.admit(rtpTimestamp: 3_000, isKeyFrame: false) == .write(at: .milliseconds(33)))
        #expect(timeline.correction == .nanoseconds(333_333))
        #expect(timeline.admit(rtpTimestamp: 3_000 + 180_000, isKeyFrame: false) == .write(at: .milliseconds(2_043)))
        #expect(timeline.correction == .milliseconds(10))
    }

    /// A correction set before anything is written applies from the first frame; a huge one is clamped (no
    /// overflow, no trap); `time(of:)` uses the correction applied.
    @Test func aCorrectionBeforeTheFirstFrameAndAHugeOne() {
        var timeline = StreamTimeline.opus(startOffset: .seconds(1))
        timeline.follow(correction: .milliseconds(-4))
        #expect(timeline.admit(rtpTimestamp: 0, isKeyFrame: false) == .write(at: .milliseconds(996)))
        #expect(timeline.time(of: 960) == .milliseconds(1_016))
        timeline.follow(correction: .seconds(1_000_000_000))
        #expect(timeline.correctionTarget == .seconds(60))
        #expect(timeline.admit(rtpTimestamp: 960, isKeyFrame: false) == .write(at: .milliseconds(1_016)),
                "0.2 ms of 60 s: floored")
    }
}
