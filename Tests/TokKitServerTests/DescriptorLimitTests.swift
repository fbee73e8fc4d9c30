import Testing

/// `tokkit-server` raises its soft descriptor limit to what `maxConnections` needs (issue 17, item 2: with the 256
/// of the probe, 300 slow connections starved the server before any cap could apply).
@Suite(.timeLimit(.minutes(1))) struct DescriptorLimitTests {
    @Test func theServerRaisesItsSoftDescriptorLimitForTheConnectionCap() async throws {
        let server = try await ServerProcess([], descriptorLimit: "256:")
        let limits = try #require(server.descriptorLimits)
        #expect(limits.soft >= min(4_096 + 64, limits.hard), "\(limits)")
        #expect(await server.stop() == 0)

        let capped = try await ServerProcess([], descriptorLimit: "256:512")  // up to the hard limit only
        #expect(capped.descriptorLimits.map { $0 == (512, 512) } == true, "\(String(describing: capped.descriptorLimits))")
        #expect(await capped.stop() == 0)
    }
}
