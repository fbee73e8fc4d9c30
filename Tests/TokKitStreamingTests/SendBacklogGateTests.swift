import Testing
import TokKitStreaming

/// The frame dropper's decision, from the send queue's figures alone.
struct SendBacklogGateTests {
    /// Sums the paced time of a frame of `packets` packets of `payload` bytes each.
    static func frameTime(packets: Int, payload: Int, estimate: Int) -> Duration {
        (0..<packets).reduce(.zero) { sum, _ in
            sum + SendBacklogGate.pacedTime(payloadBytes: payload, frameBytes: packets * payload, estimate: estimate)
        }
    }

    /// 300 kb/s paced at 2.5 × = 750 kb/s: 400 ms is 37 500 bytes on the wire.
    @Test func aBacklogOverTheBudgetAtThePacingRateSkipsFrames() {
        var gate = SendBacklogGate()
        // Delta frames of 1 138 B + 62 B overhead each (their own rate is the nominal one): 30 of them, 36 000 B,
        // take 384 ms; 32 of them, 38 400 B, 409.6 ms.
        let one = SendBacklogGate.pacedTime(payloadBytes: 1_138, frameBytes: 1_138, estimate: 300_000)
        #expect(one == .nanoseconds(12_800_000))
        let short = gate.admits(backlog: one * 30, packets: 30, capacity: 1024)
        let long = gate.admits(backlog: one * 32, packets: 32, capacity: 1024)
        #expect(short && !long)
        #expect(gate.skipped == 1 && gate.skippedForRoom == 0)
    }

    /// The same queue is a short backlog on a fast path: the budget is time, not bytes.
    @Test func theBudgetScalesWithTheEstimate() {
        var gate = SendBacklogGate()
        let fast = gate.admits(backlog: Self.frameTime(packets: 32, payload: 1_138, estimate: 2_000_000), packets: 32,
                               capacity: 1024)
        // 32 one-packet frames at 200 kb/s.
        let slowFrame = SendBacklogGate.pacedTime(payloadBytes: 1_138, frameBytes: 1_138, estimate: 200_000)
        let slow = gate.admits(backlog: slowFrame * 32, packets: 32, capacity: 1024)
        #expect(fast && !slow)
        #expect(gate.skipped == 1)
    }

    /// The gate takes each frame at the pacer's own rate for it (``PacketPacer/frameRate(bytes:targetBitrate:)``),
    /// not the nominal 2.5 × the estimate. At 400 kb/s a 25 000 B key frame (22 packets) goes at about 455 kb/s
    /// (it must not fill a bottleneck's queue) and takes ~464 ms: the next frame is skipped, where the nominal
    /// 1 Mb/s (211 ms) would have queued it behind. At 100 kb/s the same frame is raised to leave within 1 s.
    @Test func aKeyFrameCountsAtThePacersOwnRateForIt() {
        var gate = SendBacklogGate()
        let packets = 22, payload = 25_000 / 22
        let time = Self.frameTime(packets: packets, payload: payload, estimate: 400_000)
        #expect(time > .milliseconds(455) && time < .milliseconds(475), "\(time)")
        let behind = gate.admits(backlog: time, packets: packets, capacity: 1024)
        let drained = gate.admits(backlog: time - .milliseconds(100), packets: packets, capacity: 1024)
        #expect(!behind && drained)
        #expect(gate.skipped == 1)
        let slow = Self.frameTime(packets: packets, payload: payload, estimate: 100_000)
        #expect(slow > .milliseconds(1_000) && slow < .milliseconds(1_060), "\(slow)")
    }

    /// Before any estimate nothing is paced: the queue's time is zero and only its room can skip a frame.
    @Test func withoutAnEstimateOnlyRoomSkips() {
        var gate = SendBacklogGate()
        #expect(SendBacklogGate.pacedTime(payloadBytes: 1_200, frameBytes: 1_000_000, estimate: .max) == .zero)
        let half = gate.admits(backlog: .zero, packets: 512, capacity: 1024)
        #expect(half && gate.skipped == 0)
        let over = gate.admits(backlog: .zero, packets: 513, capacity: 1024)
        #expect(!over, "more than half full")
        #expect(gate.skipped == 1 && gate.skippedForRoom == 1)
        // A small queue: half of 5 is 2.
        let (two, three) = (gate.admits(backlog: .zero, packets: 2, capacity: 5),
                            gate.admits(backlog: .zero, packets: 3, capacity: 5))
        #expect(two && !three)
        #expect(gate.skipped == 2 && gate.skippedForRoom == 2)
    }

    /// A skip lasts only while the queue is behind: once it drained below the budget, frames are encoded again.
    @Test func skippingEndsWhenTheQueueHasDrained() {
        var gate = SendBacklogGate()
        var queued: Duration = .milliseconds(640)
        var decisions: [Bool] = []
        for _ in 0..<12 {
            decisions.append(gate.admits(backlog: queued, packets: 10, capacity: 1024))
            queued = max(queued - .nanoseconds(33_333_333), .zero)  // a frame interval drained
        }
        #expect(decisions.prefix(while: { !$0 }).count == 8)
        #expect(decisions.drop(while: { !$0 }).allSatisfy { $0 })
        #expect(gate.skipped == 8)
    }
}
