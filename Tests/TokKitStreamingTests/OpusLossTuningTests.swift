import Testing
@testable import TokKitStreaming

@Suite("OpusLossTuning") struct OpusLossTuningTests {
    @Test func aCleanPathTurnsTheFECDownStepByStep() {
        var tuning = OpusLossTuning(percent: 5)
        #expect(tuning.update(reportedLoss: 0) == 1)  // smoothed 2.5 %
        #expect(tuning.update(reportedLoss: 0) == nil)  // 1.25 %: still at least 1 %
        #expect(tuning.update(reportedLoss: 0) == 0)
        #expect(tuning.percent == 0)
    }

    @Test func heavyLossClimbsToTwentyPercent() {
        var tuning = OpusLossTuning(percent: 0)
        var settings: [Int] = []
        for _ in 0..<6 { if let p = tuning.update(reportedLoss: 0.3) { settings.append(p) } }
        #expect(settings == [10, 20], "\(settings)")  // 15 %, then 22.5 % (past 20 + 2)
    }

    /// A loss hovering at a step's threshold keeps the setting: climbing needs the margin above it, leaving needs
    /// the margin below.
    @Test func theMarginsKeepTheSettingFromFlapping() {
        #expect(OpusLossTuning.step(for: 0.115, from: 5) == 10)
        #expect(OpusLossTuning.step(for: 0.115, from: 0) == 10)
        #expect(OpusLossTuning.step(for: 0.105, from: 5) == 5, "below 10 + 1 % while climbing")
        #expect(OpusLossTuning.step(for: 0.095, from: 10) == 10, "above 10 - 1 % while there")
        #expect(OpusLossTuning.step(for: 0.21, from: 10) == 10)
        #expect(OpusLossTuning.step(for: 0.19, from: 20) == 20)
        #expect(OpusLossTuning.step(for: 0.005, from: 1) == 0)
        #expect(OpusLossTuning.step(for: 2, from: 0) == 20)
    }
}
