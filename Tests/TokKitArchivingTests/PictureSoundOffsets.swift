import TokKitTesting

/// How far each recorded picture of a flash-and-beep source (``FlashBeepCapturer``, ``FlashBeepAudioDevice``) is
/// shown from the sound captured at the same instant: issue 16's audio/video offset, measured on every picture of a
/// recording rather than on a flash's first white picture only.
///
/// Each picture carries its slot's phase (the slot modulo the schedule's `framesPerFlash`); the slot of phase `p`
/// after flash `m`'s start was captured `p / framesPerSecond` after the first sample of beep `m`, so the file plays
/// its sound at beep `m`'s start in the file plus that. The offset is the picture's time minus that: positive when
/// the picture comes late. Beep `m` is the one that puts the sound nearest the picture (one flash interval either
/// way of the picture's nearest beep, for pictures before the first beep found or after the last), so offsets are
/// measured within half a flash interval (±0.5 s by default).
///
/// Unlike a flash's onset, this does not depend on which canvas frame a flash first shows in: a composed archive at
/// 15 fps can show a flash only on its 66.7 ms grid, but every picture it shows names its own capture instant, so the
/// offset of each is exact to the millisecond of the beep's onset. What stays is what the archive really does: a
/// canvas that shows 30 fps sources at 15 fps shows each picture up to half a source frame (16.7 ms) from its sound
/// even when the streams are in sync, and that is part of the offset measured.
enum PictureSoundOffsets {
    /// Issue 16's bar: every picture within 40 ms of its sound.
    static let limit = 0.040

    /// The offset in seconds of each picture (its time in the file and the phase it shows) against the beeps'
    /// starts in the file (seconds, ascending), in the pictures' order; empty without beeps.
    static func measure(pictures: [(time: Double, phase: Int)], beeps: [Double], schedule: FlashBeepSchedule) -> [Double] {
        guard !beeps.isEmpty else { return [] }
        let rate = Double(schedule.framesPerSecond)
        let interval = Double(schedule.framesPerFlash) / rate
        return pictures.map { picture in
            let nearest = beeps.min { abs($0 - picture.time) < abs($1 - picture.time) }!
            let sound = (-1...1).map { nearest + Double($0) * interval + Double(picture.phase) / rate }
                .min { abs($0 - picture.time) < abs($1 - picture.time) }!
            return picture.time - sound
        }
    }

    /// The offsets over ``limit`` either way.
    static func outside(_ offsets: [Double]) -> [Double] { offsets.filter { abs($0) > limit } }
}
