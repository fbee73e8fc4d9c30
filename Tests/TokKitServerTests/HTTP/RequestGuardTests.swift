import NIOCore
import Testing
@testable import TokKitServer

@Suite struct RequestGuardTests {
    /// Deadlines are spread over [timeout, 1.25 × timeout]: never shorter than configured, and connections opened
    /// together (a slowloris ramp) do not all time out, and reconnect, in the same instant.
    @Test func deadlinesAreSpreadAboveTheConfiguredTimeout() {
        let timeout = TimeAmount.seconds(10)
        let draws = (0..<1_000).map { _ in RequestGuard.spread(timeout).nanoseconds }
        #expect(draws.allSatisfy { $0 >= timeout.nanoseconds && $0 <= timeout.nanoseconds * 5 / 4 })
        // Spread over the window: both of its halves are used (the chance that 1,000 draws miss one: 2^-999).
        let middle = timeout.nanoseconds * 9 / 8
        #expect(draws.contains { $0 < middle } && draws.contains { $0 > middle })
        #expect(RequestGuard.spread(.zero) == .zero)
    }
}
