import Synchronization
import Testing
@testable import TokKitAudio

/// A worker that fails on a chosen period and records the control calls it gets.
private final class ScriptedWorker: AudioSideWorker {
    let failOnPeriod: Int
    let periods = Atomic<Int>(0)
    let starts = Atomic<Int>(0)
    let stops = Atomic<Int>(0)
    let refuseStart: Bool

    init(failOnPeriod: Int = .max, refuseStart: Bool = false) {
        self.failOnPeriod = failOnPeriod
        self.refuseStart = refuseStart
    }

    func willStart() throws(AudioDeviceError) {
        if refuseStart { throw .deviceBusy("scripted") }
        starts.add(1, ordering: .relaxed)
    }

    func transferPeriod(_ bus: (any AudioBus)?) throws(AudioDeviceError) -> Bool {
        let n = periods.add(1, ordering: .relaxed).newValue
        if n >= failOnPeriod { throw .deviceFailed("unplugged at period \(n)") }
        return true
    }

    func didStop() { stops.add(1, ordering: .relaxed) }
}

@Suite struct AudioDeviceSideTests {
    @Test(arguments: [AudioPacing.clock, .device])
    func aFailingWorkerStopsTheSideAndReportsWhy(pacing: AudioPacing) throws {
        let side = AudioDeviceSide<ScriptedWorker>(threadName: "test-side", pacing: pacing, bus: AudioBusSlot())
        let worker = ScriptedWorker(failOnPeriod: 3)
        try side.initialize { worker }
        try side.start()
        #expect(poll { !side.isRunning })
        #expect(side.failure == .deviceFailed("unplugged at period 3"))
        #expect(side.counters.periods.load(ordering: .relaxed) == 2)
        #expect(worker.periods.load(ordering: .relaxed) == 3)   // the thread ended: no more calls
        // Starting again cleans up the failed run first, then runs afresh.
        try side.start()
        #expect(worker.stops.load(ordering: .relaxed) == 1)
        #expect(worker.starts.load(ordering: .relaxed) == 2)
        #expect(side.failure == nil || side.failure == .deviceFailed("unplugged at period 4"))
        side.stop()
    }

    @Test func stateMachine() throws {
        let side = AudioDeviceSide<ScriptedWorker>(threadName: "test-side", pacing: .clock, bus: AudioBusSlot())
        #expect(throws: AudioDeviceError.notInitialized) { try side.start() }
        side.stop()   // not running: nothing happens
        let first = ScriptedWorker()
        try side.initialize { first }
        try side.initialize { Issue.record("initialized twice"); return ScriptedWorker() }
        #expect(side.isInitialized && !side.isRunning)
        try side.start()
        try side.start()   // already running: no second thread, no second willStart
        #expect(side.isRunning)
        #expect(first.starts.load(ordering: .relaxed) == 1)
        side.stop()
        side.stop()
        #expect(first.stops.load(ordering: .relaxed) == 1)
        #expect(!side.isRunning && side.isInitialized)
        side.release()
        #expect(!side.isInitialized && side.worker == nil)
    }

    @Test func aRefusedStartLeavesTheSideInitialized() throws {
        let side = AudioDeviceSide<ScriptedWorker>(threadName: "test-side", pacing: .clock, bus: AudioBusSlot())
        try side.initialize { ScriptedWorker(refuseStart: true) }
        #expect(throws: AudioDeviceError.deviceBusy("scripted")) { try side.start() }
        #expect(side.isInitialized && !side.isRunning)
    }

    @Test func stopWaitsForTheThread() throws {
        let side = AudioDeviceSide<ScriptedWorker>(threadName: "test-side", pacing: .device, bus: AudioBusSlot())
        let worker = ScriptedWorker()
        try side.initialize { worker }
        try side.start()
        #expect(poll { worker.periods.load(ordering: .relaxed) > 10 })
        side.stop()
        let after = worker.periods.load(ordering: .relaxed)
        #expect(poll(timeout: .milliseconds(50)) { worker.periods.load(ordering: .relaxed) != after } == false)
    }
}
