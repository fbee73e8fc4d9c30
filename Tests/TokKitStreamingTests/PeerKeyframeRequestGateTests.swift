import Testing
import TokKitStreaming

/// Peers' key frame requests against the sender's last key frame, on times chosen by the test.
struct PeerKeyframeRequestGateTests {
    @Test func atMostOneAnswerPerInterval() {
        var gate = PeerKeyframeRequestGate()
        let t = Duration.seconds(10)
        let answered1 = gate.request(at: t)
        #expect(answered1)
        let answered2 = gate.request(at: t + .milliseconds(299))
        #expect(!answered2)
        let answered3 = gate.request(at: t + .milliseconds(300))
        #expect(answered3)
        #expect(gate.ignored == 1)
    }

    /// A key frame paced out over 400 ms: requests until its last packet left, and for 200 ms more, are the
    /// receivers' stale ones; after that one is answered.
    @Test func noAnswerWhileTheLastKeyFrameIsBeingPacedOut() {
        var gate = PeerKeyframeRequestGate()
        let t = Duration.seconds(10)
        gate.keyframeQueued(at: t, leavingWithin: .milliseconds(400))
        let asked = stride(from: 0, through: 550, by: 50).map { gate.request(at: t + .milliseconds($0)) }
        #expect(asked.allSatisfy { !$0 }, "\(asked)")
        let answered4 = gate.request(at: t + .milliseconds(600))
        #expect(answered4)
        #expect(gate.ignored == 12)
    }

    /// A key frame that leaves at once (fast path, no estimate yet) holds no request up; a short one only as long
    /// as it took to leave.
    @Test func aKeyFrameLeavingAtOnceHoldsNothingUp() {
        var gate = PeerKeyframeRequestGate()
        let t = Duration.seconds(10)
        gate.keyframeQueued(at: t, leavingWithin: .zero)
        let answered5 = gate.request(at: t)
        #expect(answered5)
        gate.keyframeQueued(at: t + .seconds(1), leavingWithin: .milliseconds(20))
        let answered6 = gate.request(at: t + .seconds(1) + .milliseconds(39))
        #expect(!answered6)
        let answered7 = gate.request(at: t + .seconds(1) + .milliseconds(40))
        #expect(answered7)
    }

    /// A request deferred for a router's layer switch is bound by the interval only.
    @Test func aDeferredRequestIgnoresThePacing() {
        var gate = PeerKeyframeRequestGate()
        let t = Duration.seconds(10)
        let answered8 = gate.request(at: t)
        #expect(answered8)
        gate.keyframeQueued(at: t, leavingWithin: .seconds(1))
        #expect(!gate.wouldAnswer(at: t + .milliseconds(300)))
        #expect(gate.wouldAnswer(at: t + .milliseconds(300), ignoreBusy: true))
        #expect(!gate.wouldAnswer(at: t + .milliseconds(299), ignoreBusy: true))
        let answered9 = gate.request(at: t + .milliseconds(300), ignoreBusy: true)
        #expect(answered9)
        #expect(gate.ignored == 0)
    }

    /// Key frames queued back to back: the later end counts.
    @Test func theLaterOfTwoKeyFramesCounts() {
        var gate = PeerKeyframeRequestGate()
        let t = Duration.seconds(10)
        gate.keyframeQueued(at: t, leavingWithin: .milliseconds(800))  // busy until 1000 ms
        gate.keyframeQueued(at: t + .milliseconds(100), leavingWithin: .milliseconds(100))  // until 300 ms
        let answered10 = gate.request(at: t + .milliseconds(999))
        #expect(!answered10)
        let answered11 = gate.request(at: t + .milliseconds(1_000))
        #expect(answered11)
    }
}
