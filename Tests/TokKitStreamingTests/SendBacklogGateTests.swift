import Testing
import TokKitStreaming

/// The frame dropper's decision, from the send queue's figures alone.
struct SendBacklogGateTests {
    /// 300 kb/s paced at 2.5 × = 750 kb/s: 400 ms is 37 500 bytes on the wire.
    @Test func aBacklogOverTheBudgetAtThePacingRateSkipsFrames() {
        var gate = SendBacklogGate()
        // 30 packets of 1 138 B + 62 B overhead = 36 000 B: 384 ms, encoded.
        let short = gate.admits(bytes: 30 * 1_138, packets: 30, estimate: 300_000)
        // 32 packets: 38 400 B, 409.6 ms: skipped.
        let long = gate.admits(bytes: 32 * 1_138, packets: 32, estimate: 300_000)
        #expect(short && !long)
        #expect(gate.skipped == 1)
        #expect(SendBacklogGate.backlog(bytes: 32 * 1_138, packets: 32, estimate: 300_000)
                == .nanoseconds(409_600_000))
    }

    /// The same queue is a short backlog on a fast path: the budget is time, not bytes.
    @Test func theBudgetScalesWithTheEstimate() {
        var gate = SendBacklogGate()
        let fast = gate.admits(bytes: 32 * 1_138, packets: 32, estimate: 2_000_000)
        let slow = gate.admits(bytes: 32 * 1_138, packets: 32, estimate: 200_000)
        #expect(fast && !slow)
        #expect(gate.skipped == 1)
    }

    /// Before any estimate nothing is paced: the queue drains at once and no frame is skipped.
    @Test func withoutAnEstimateNothingIsSkipped() {
        var gate = SendBacklogGate()
        let admitted = gate.admits(bytes: 1_000_000, packets: 900, estimate: .max)
        #expect(admitted)
        #expect(SendBacklogGate.backlog(bytes: 1_000_000, packets: 900, estimate: .max) == .zero)
        #expect(gate.skipped == 0)
    }

    /// A skip lasts only while the queue is behind: once it drained below the budget, frames are encoded again.
    @Test func skippingEndsWhenTheQueueHasDrained() {
        var gate = SendBacklogGate()
        let estimate = 500_000  // 1.25 Mb/s: 62 500 B in 400 ms
        var queued = 100_000
        var decisions: [Bool] = []
        for _ in 0..<12 {
            decisions.append(gate.admits(bytes: queued, packets: 0, estimate: estimate))
            queued = max(queued - 1_250_000 / 8 / 30, 0)  // a frame interval at the pacing rate
        }
        #expect(decisions.prefix(while: { !$0 }).count == 8)
        #expect(decisions.drop(while: { !$0 }).allSatisfy { $0 })
        #expect(gate.skipped == 8)
    }
}
