import Testing
import TokKitTesting

/// The flash-and-beep schedule with hand-worked times: slots of 1/30 s from the origin, a 3-slot flash every 30.
@Suite struct FlashBeepScheduleTests {
    let schedule = FlashBeepSchedule(origin: .seconds(100))

    @Test func cutsTimeIntoFrameSlots() {
        #expect(schedule.frame(at: .seconds(100)) == 0)
        #expect(schedule.frame(at: .seconds(100) + .nanoseconds(33_333_333)) == 0, "just before slot 1")
        #expect(schedule.frame(at: .seconds(100) + .nanoseconds(33_333_334)) == 1)
        #expect(schedule.frame(at: .seconds(101)) == 30)
        #expect(schedule.frame(at: .seconds(100) - .nanoseconds(1)) == -1, "rounded down before the origin")
        #expect(schedule.frame(at: .seconds(99)) == -30)
        #expect(schedule.frameTime(1) == .seconds(100) + .nanoseconds(33_333_334), "its first whole nanosecond")
        #expect(schedule.frameTime(-1) == .seconds(100) - .nanoseconds(33_333_333))
        #expect(schedule.frameTime(30) == .seconds(101))
        #expect(schedule.frame(at: schedule.frameTime(47)) == 47)
    }

    @Test func flashesAndBeepsInTheSameSlots() {
        #expect(schedule.interval == .seconds(1) && schedule.flashLength == .milliseconds(100))
        #expect((0..<3).allSatisfy { schedule.isFlash(frame: $0) } && !schedule.isFlash(frame: 3))
        #expect(schedule.isFlash(frame: 30) && schedule.isFlash(frame: 62) && !schedule.isFlash(frame: 63))
        #expect(!schedule.isFlash(frame: -30) && !schedule.isFlash(frame: -1), "nothing before the origin")
        #expect(!schedule.isBeeping(at: .seconds(101) - .nanoseconds(1)))
        #expect(schedule.isBeeping(at: .seconds(101)), "the beep starts with the flash's first frame")
        #expect(schedule.isBeeping(at: .seconds(101) + .nanoseconds(99_999_999)))
        #expect(!schedule.isBeeping(at: .seconds(101) + .milliseconds(100)), "and ends with its last")
        #expect(schedule.flashStart(2) == .seconds(102))
    }
}
