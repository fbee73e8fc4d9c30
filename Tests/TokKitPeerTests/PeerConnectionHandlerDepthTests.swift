#if canImport(Glibc)
import Glibc
#endif
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
            let address = withUnsafeMutablePointer(to: &marker) { Self.stackAddress(of: $0) }
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

    /// Where `local` lives on the thread's stack. Under AddressSanitizer (`scripts/test --sanitize address`), whose
    /// use-after-return check moves locals whose address is taken into a "fake stack" on the heap, the address of the
    /// real stack frame the fake one stands for (`__asan_addr_is_in_fake_stack`): the depth is measured either way.
    static func stackAddress(of local: UnsafeMutablePointer<Int>) -> UInt {
        let raw = UnsafeMutableRawPointer(local)
        guard let currentFakeStack = asanCurrentFakeStack, let addressIsInFakeStack = asanAddressIsInFakeStack,
              let fakeStack = currentFakeStack(), let real = addressIsInFakeStack(fakeStack, raw, nil, nil)
        else { return UInt(bitPattern: raw) }
        return UInt(bitPattern: real)
    }

    private typealias CurrentFakeStack = @convention(c) () -> UnsafeMutableRawPointer?
    private typealias AddressIsInFakeStack = @convention(c) (
        UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
        UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    ) -> UnsafeMutableRawPointer?
    private static let asanCurrentFakeStack = dlsym(nil, "__asan_get_current_fake_stack")
        .map { unsafeBitCast($0, to: CurrentFakeStack.self) }
    private static let asanAddressIsInFakeStack = dlsym(nil, "__asan_addr_is_in_fake_stack")
        .map { unsafeBitCast($0, to: AddressIsInFakeStack.self) }
}
