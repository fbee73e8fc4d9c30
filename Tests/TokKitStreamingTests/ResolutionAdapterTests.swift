import Testing
@testable import TokKitStreaming

@Suite("ResolutionAdapter") struct ResolutionAdapterTests {
    /// 640x480 at 30 frames a second: floors of 276, 155, 69 and 17 kb/s.
    static func adapter() -> ResolutionAdapter { ResolutionAdapter(width: 640, height: 480, framesPerSecond: 30) }

    /// Frames at 30 a second from `start`: whether any of them changed the size.
    static func frames(_ adapter: inout ResolutionAdapter, _ count: Int, target: Int, quantizer: Int?,
                       from start: Duration) -> Bool {
        var changed = false
        for k in 0..<count where adapter.update(target: target, quantizer: quantizer, at: start + .milliseconds(33 * k)) {
            changed = true
        }
        return changed
    }

    static func update(_ adapter: inout ResolutionAdapter, target: Int, quantizer: Int?, keyframe: Bool = false,
                       at now: Duration) -> Bool {
        adapter.update(target: target, quantizer: quantizer, keyframe: keyframe, at: now)
    }

    static func keyframeComing(_ adapter: inout ResolutionAdapter, target: Int) -> Bool {
        adapter.keyframeComing(target: target)
    }

    @Test func theSizesAreEvenFractionsDownToTheSmallest() {
        let a = Self.adapter()
        #expect((0..<4).map { a.size($0).width } == [640, 480, 320, 160])
        #expect((0..<4).map { a.size($0).height } == [480, 360, 240, 120])
        #expect((0..<4).map(a.floor) == [276_480, 155_520, 69_120, 17_280])
        let odd = ResolutionAdapter(width: 642, height: 362, framesPerSecond: 30)
        #expect(odd.size(1).width == 480 && odd.size(1).height == 270)  // 481.5 x 271.5, made even
    }

    @Test func aLowTargetAloneKeepsTheSizeWhileTheEncoderIsNotAtItsHighestQuantizer() {
        var a = Self.adapter()
        #expect(!Self.frames(&a, 100, target: 60_000, quantizer: 30, from: .zero))
        // Four frames at the highest quantizer, then one under it: the count starts again.
        #expect(!Self.frames(&a, 4, target: 60_000, quantizer: 56, from: .seconds(4)))
        #expect(!Self.frames(&a, 1, target: 60_000, quantizer: 40, from: .seconds(5)))
        #expect(!Self.frames(&a, 4, target: 60_000, quantizer: 56, from: .seconds(6)))
        #expect(a.step == 0)
        // A high quantizer alone (the target carries the size) keeps it too.
        #expect(!Self.frames(&a, 100, target: 300_000, quantizer: 56, from: .seconds(8)))
        #expect(a.size.width == 640 && a.size.height == 480)
    }

    @Test func stepsDownAtOnceToTheLargestSizeTheTargetCarries() {
        var a = Self.adapter()
        #expect(!Self.frames(&a, 4, target: 100_000, quantizer: 54, from: .zero))
        #expect(Self.update(&a, target: 100_000, quantizer: 56, at: .milliseconds(140)))  // the fifth
        #expect(a.size.width == 320 && a.size.height == 240)  // 155 k > 100 k ≥ 69 k: past 480x360
        // Lower still: five more frames at the highest quantizer at this size, then the smallest.
        #expect(!Self.frames(&a, 4, target: 20_000, quantizer: 56, from: .seconds(1)))
        #expect(Self.update(&a, target: 20_000, quantizer: 56, at: .seconds(2)))
        #expect(a.size.width == 160 && a.size.height == 120)
        // Under every floor: it stays at the smallest.
        #expect(!Self.frames(&a, 30, target: 5_000, quantizer: 56, from: .seconds(3)))
        #expect(a.step == 3)
    }

    @Test func stepsUpOneSizeAtATimeAfterTheTargetHeldHeadroomForTheHold() {
        var a = Self.adapter()
        #expect(Self.frames(&a, 5, target: 20_000, quantizer: 56, from: .zero))
        #expect(a.step == 3)
        // 1.3 × 69 k = 90 k for 320x240. Just under: never.
        #expect(!Self.frames(&a, 150, target: 89_000, quantizer: 20, from: .seconds(1)))
        // At it, for 2 s less a frame, broken once by a dip: the hold starts again after the dip.
        #expect(!Self.frames(&a, 40, target: 90_000, quantizer: 20, from: .seconds(10)))
        #expect(!Self.update(&a, target: 80_000, quantizer: 20, at: .milliseconds(11_400)))
        #expect(!Self.frames(&a, 60, target: 90_000, quantizer: 20, from: .milliseconds(11_500)))  // to 13.47 s
        #expect(Self.update(&a, target: 90_000, quantizer: 20, at: .milliseconds(13_500)))
        #expect(a.size.width == 320 && a.size.height == 240)
        // A target that carries the full size: one step per hold, not at once.
        #expect(!Self.frames(&a, 60, target: 2_000_000, quantizer: 20, from: .seconds(20)))
        #expect(Self.update(&a, target: 2_000_000, quantizer: 20, at: .seconds(22)))
        #expect(a.size.width == 480 && a.size.height == 360)
        #expect(!Self.update(&a, target: 2_000_000, quantizer: 20, at: .seconds(23)))  // the hold starts again
        #expect(!Self.update(&a, target: 2_000_000, quantizer: 20, at: .seconds(24)))
        #expect(Self.update(&a, target: 2_000_000, quantizer: 20, at: .seconds(25)))
        #expect(a.size.width == 640 && a.size.height == 480)
        #expect(!Self.update(&a, target: 2_000_000, quantizer: 20, at: .seconds(30)))  // no larger size
    }

    @Test func aKeyframeAskedForTakesTheSmallerSizeOnTheLastFrameAlone() {
        var a = Self.adapter()
        // Not before any frame at the highest quantizer, nor while the target carries the size.
        #expect(!Self.keyframeComing(&a, target: 100_000))
        #expect(!Self.frames(&a, 1, target: 100_000, quantizer: 30, from: .zero))
        #expect(!Self.keyframeComing(&a, target: 100_000))
        #expect(!Self.frames(&a, 1, target: 300_000, quantizer: 56, from: .seconds(1)))
        #expect(!Self.keyframeComing(&a, target: 300_000))
        // Nor after a keyframe at it (a keyframe at a low target is, whatever the content), after a delta frame under.
        #expect(!Self.frames(&a, 1, target: 100_000, quantizer: 30, from: .seconds(2)))
        #expect(!Self.update(&a, target: 100_000, quantizer: 56, keyframe: true, at: .milliseconds(2_100)))
        #expect(!Self.keyframeComing(&a, target: 100_000))
        // One delta frame at it under the floor (four short of a step on its own): the keyframe goes to 320x240.
        #expect(!Self.frames(&a, 1, target: 100_000, quantizer: 56, from: .seconds(3)))
        #expect(Self.keyframeComing(&a, target: 100_000))
        #expect(a.size.width == 320 && a.size.height == 240)
        // The count starts again at the new size.
        #expect(!Self.keyframeComing(&a, target: 20_000))
        #expect(a.step == 2)
    }

    @Test func aSmallConfiguredSizeHasFewerSteps() {
        // 320x240: 240x180 and 160x120 are at least 160x90's pixels, 80x60 is not.
        var a = ResolutionAdapter(width: 320, height: 240, framesPerSecond: 30)
        #expect(Self.frames(&a, 5, target: 1_000, quantizer: 56, from: .zero))
        #expect(a.size.width == 160 && a.size.height == 120)
        #expect(!Self.frames(&a, 30, target: 1_000, quantizer: 56, from: .seconds(1)))
        // Already at the smallest: nothing to step down to.
        var tiny = ResolutionAdapter(width: 160, height: 90, framesPerSecond: 30)
        #expect(!Self.frames(&tiny, 30, target: 1_000, quantizer: 56, from: .zero))
        #expect(tiny.size.width == 160 && tiny.size.height == 90)
    }
}
