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

    /// Issue found in review: the pacer raises its rate for a frame that would take longer than 250 ms, so a key
    /// frame leaves in 250 ms whatever the estimate. At 100 kb/s (paced at 250 kb/s) a 25 000 B key frame (22
    /// packets) takes 250 ms + its overhead at the raised 800 kb/s, not the 843 ms the nominal rate gives: the frames
    /// after it are encoded (the gate took the nominal rate before and skipped ~4 frames after every key frame).
    @Test func aKeyFrameCountsAtThePacersRaisedRate() {
        var gate = SendBacklogGate()
        let packets = 22, payload = 25_000 / 22
        let time = Self.frameTime(packets: packets, payload: payload, estimate: 100_000)
        let nominal = Duration.nanoseconds(Int64(packets * (payload + 62)) * 8 * 1_000_000_000 / 250_000)
        print("25 kB key frame at 100 kb/s: paced \(time), at the nominal rate \(nominal)")
        #expect(time > .milliseconds(250) && time < .milliseconds(270), "\(time)")
        #expect(nominal > .milliseconds(800))
        let one = gate.admits(backlog: time, packets: packets, capacity: 1024)
        // Two of them do not fit in 400 ms: the next frame is skipped.
        let two = gate.admits(backlog: time * 2, packets: packets * 2, capacity: 1024)
        #expect(one && !two)
        #expect(gate.skipped == 1)
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
