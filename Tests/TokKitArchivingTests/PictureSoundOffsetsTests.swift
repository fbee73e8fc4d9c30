import Testing
import TokKitTesting

/// The measurement behind the flash-and-beep check of `ArchiveQualityTests`, on made-up recordings whose real
/// audio/video offset is known: a 15 fps canvas showing a 30 fps flash-and-beep source, each canvas frame the source
/// picture whose sound is nearest its time plus the offset put in (what an archive with that offset shows), beeps at
/// the schedule's times shifted by where the recording started, at every phase between the source's slots and the
/// canvas's frames.
@Suite struct PictureSoundOffsetsTests {
    let schedule = FlashBeepSchedule(origin: .seconds(100))

    /// A made-up 6 s composed recording: the canvas frames' times and the phase each shows, and the beeps' starts;
    /// the source's slot 0 (a beep's start) falls `start` s into the file, the pictures are `offset` s late.
    func recording(start: Double, offset: Double) -> (pictures: [(time: Double, phase: Int)], beeps: [Double]) {
        let canvasRate = 15.0
        let slot = 1.0 / Double(schedule.framesPerSecond)
        let beeps = (0..<6).map { start + Double($0) } // the schedule's interval, 1 s
        var pictures: [(time: Double, phase: Int)] = []
        for frame in 0..<Int(6 * canvasRate) {
            let time = Double(frame) / canvasRate
            // The slot captured nearest to what plays at `time - offset`.
            let n = Int(((time - offset - start) / slot).rounded())
            pictures.append((time, FlashBeepCapturer.phase(ofSlot: n, schedule: schedule)))
        }
        return (pictures, beeps)
    }

    @Test(arguments: [0.0, 0.007, 0.013, 0.021, 0.029, 0.040, 0.052, 0.061])
    func inSyncEveryPictureIsWithinHalfASourceFrame(phase: Double) {
        let made = recording(start: 0.4 + phase, offset: 0)
        let offsets = PictureSoundOffsets.measure(pictures: made.pictures, beeps: made.beeps, schedule: schedule)
        #expect(offsets.count == made.pictures.count)
        #expect(offsets.allSatisfy { abs($0) <= 1.0 / 60 + 1e-9 }, "\(offsets)")
        #expect(PictureSoundOffsets.outside(offsets).isEmpty)
    }

    @Test(arguments: [0.0, 0.007, 0.013, 0.021, 0.029, 0.040, 0.052, 0.061])
    func aRealOffsetOf60msFailsTheCheckAtEveryPhase(phase: Double) {
        for offset in [0.060, -0.060] {
            let made = recording(start: 0.4 + phase, offset: offset)
            let offsets = PictureSoundOffsets.measure(pictures: made.pictures, beeps: made.beeps, schedule: schedule)
            // Every picture is measured within half a source frame of the offset put in, so none passes.
            #expect(offsets.allSatisfy { abs($0 - offset) <= 1.0 / 60 + 1e-9 }, "\(offset): \(offsets)")
            #expect(PictureSoundOffsets.outside(offsets).count == offsets.count, "\(offset) s late: every picture outside")
        }
    }

    @Test func eachPictureAtItsOwnTimeShowsTheOffsetExactly() {
        // An individual file keeps every source picture at its own time: each shows the offset put in, no rounding.
        let start = 0.517, beeps = (0..<6).map { 0.517 + Double($0) }
        for offset in [-0.045, -0.020, 0.0, 0.033, 0.041] {
            let pictures = (-10..<170).map { n in
                (time: start + Double(n) / 30 + offset, phase: FlashBeepCapturer.phase(ofSlot: n, schedule: schedule))
            }
            let offsets = PictureSoundOffsets.measure(pictures: pictures, beeps: beeps, schedule: schedule)
            #expect(offsets.allSatisfy { abs($0 - offset) < 1e-9 }, "\(offset): \(offsets)")
            #expect(PictureSoundOffsets.outside(offsets).count == (abs(offset) > 0.040 ? offsets.count : 0))
        }
    }

    @Test func picturesBeforeTheFirstBeepAndAfterTheLastAreMeasuredToo() {
        let pictures: [(time: Double, phase: Int)] = [(0.1, 3), (0.9, 27), (5.8, 10)]
        // Beeps at 1, 2, 3 s: phase 3 before the first one belongs to the flash at 0 s.
        let offsets = PictureSoundOffsets.measure(pictures: pictures, beeps: [1, 2, 3], schedule: schedule)
        #expect(offsets.count == 3)
        #expect(abs(offsets[0] - 0.0) < 1e-9 && abs(offsets[1] - 0.0) < 1e-9, "\(offsets)")
        // 5.8 s is three intervals past the last beep: out of reach, measured against the nearest sound (4.333 s).
        #expect(abs(offsets[2] - (5.8 - (4 + 10.0 / 30))) < 1e-9, "\(offsets)")
        #expect(PictureSoundOffsets.measure(pictures: pictures, beeps: [], schedule: schedule).isEmpty)
    }

    @Test(arguments: [1, 2])
    func thePhaseBandReadsBackAtAnyScale(scale: Int) {
        let (width, height) = (320, 240)
        for phase in [0, 1, 17, 29, 255] {
            var plane = [UInt8](repeating: FlashBeepCapturer.flashLuma, count: width * height)
            plane.withUnsafeMutableBytes { FlashBeepCapturer.drawPhase(phase, into: $0, width: width, height: height) }
            // Nearest-neighbour scaling, as a canvas tile filling the canvas (a decoder's blur stays inside blocks).
            let (w, h) = (width * scale, height * scale)
            let scaled = (0..<(w * h)).map { plane[($0 / w / scale) * width + ($0 % w) / scale] }
            #expect(scaled.withUnsafeBufferPointer { FlashBeepCapturer.phase(inLuma: $0, width: w, height: h) } == phase)
        }
    }
}
