import Testing
@testable import TokKitICE

/// Which interface addresses an agent gathers on by default (`ICEConfiguration.includesLoopback`).
@Suite struct AgentPlanTests {
    /// Loopback only where nothing else is up: with a real interface, 127.0.0.1 would pair with every candidate of
    /// a peer on another machine and delay the nomination.
    @Test func loopbackIsGatheredOnlyWhenNothingElseIsUp() {
        #expect(AgentPlan.choose(["198.18.0.1", "2001:db8::1", "127.0.0.1"], includingLoopback: true)
                == ["198.18.0.1", "2001:db8::1"])
        #expect(AgentPlan.choose(["127.0.0.1"], includingLoopback: true) == ["127.0.0.1"])
        #expect(AgentPlan.choose(["127.0.0.1"], includingLoopback: false) == [])
        #expect(AgentPlan.choose(["198.18.0.1", "127.0.0.1"], includingLoopback: false) == ["198.18.0.1"])
        // Other loopback addresses are never candidates.
        #expect(AgentPlan.choose(["127.0.1.1", "127.0.0.1"], includingLoopback: true) == ["127.0.0.1"])
    }
}
