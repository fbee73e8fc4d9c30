import Synchronization
import Testing
import TokKitPeer
import TokKitTesting

/// Handlers are read under a lock once per packet at three layers (ICE receive, DTLS media, the section's RTP
/// handler). A closure kept bare in a `Mutex` used to gain two reabstraction thunks at every such read, so the n-th
/// packet reached the application through ~n nested thunk calls: delivery got slower packet after packet and the
/// network thread's stack would finally overflow. This test watches the stack depth at which the RTP handler runs:
/// it must not drift while packets keep arriving (no timing involved).
@Suite("PeerConnection handler depth") struct PeerConnectionHandlerDepthTests {
    @Test func theReceiveHandlerRunsAtTheSameStackDepthForEveryPacket() async throws {
        let offerer = try PeerConnection(configuration: PeerConfiguration(rtcpInterval: nil))
        let answerer = try PeerConnection(configuration: PeerConfiguration(rtcpInterval: nil))
        let depths = Mutex<[UInt]>([])
        answerer.setReceiveHandler(.audio) { _ in
            var marker = 0
            let address = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
            depths.withLock { $0.append(address) }
        }
        let pumps = try InMemorySignaling.negotiate(offerer, answerer)
        #expect(await PeerConnectionTests.poll { offerer.state == .connected && answerer.state == .connected },
                "offerer \(offerer.state), answerer \(answerer.state)")

        // 400 packets in batches of 20 (paced so the loopback socket never overflows); with the old storage the
        // handler ran about 80 bytes deeper per packet and layer, some 90 KB deeper at the last one.
        let payload = [UInt8](repeating: 0x5A, count: 100)
        let count = 400
        for batch in 0..<(count / 20) {
            for i in 0..<20 {
                try payload.withUnsafeBytes { try offerer.sendRTP(.audio, payload: $0, timestamp: UInt32(batch * 20 + i) * 960) }
            }
            _ = await PeerConnectionTests.poll(.seconds(5)) { depths.withLock { $0.count } >= (batch + 1) * 20 - 2 }
        }
        #expect(await PeerConnectionTests.poll(.seconds(10)) { depths.withLock { $0.count } >= count - 10 },
                "received \(depths.withLock { $0.count }) of \(count)")
        let seen = depths.withLock { $0 }
        let spread = (seen.max() ?? 0) - (seen.min() ?? 0)
        #expect(seen.count >= count - 10)
        #expect(spread < 8 * 1024, "the RTP handler's stack depth drifted by \(spread) bytes over \(seen.count) packets")
        offerer.close()
        answerer.close()
        for p in pumps { await p.value }
    }
}
