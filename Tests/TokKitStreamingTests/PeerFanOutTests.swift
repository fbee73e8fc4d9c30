import Testing
@testable import TokKitStreaming
import TokKitPeer
import TokKitTesting

/// The peers a send pipeline feeds: only connected ones, each announced once when it goes live.
@Suite struct PeerFanOutTests {
    @Test func feedsOnlyConnectedPeersAndSaysOnceWhenOneGoesLive() async throws {
        let fanOut = PeerFanOut()
        let idle = try PeerConnection()  // never negotiates
        defer { idle.close() }
        #expect(try fanOut.attach(idle))
        #expect(try !fanOut.attach(idle))
        var live = fanOut.live()
        #expect(live.peers.isEmpty && !live.newlyLive && fanOut.count == 1)

        let pair = try await LoopbackPeerPair.connect()
        defer { pair.close() }
        #expect(try fanOut.attach(pair.publisher))
        live = fanOut.live()
        #expect(live.peers.map(ObjectIdentifier.init) == [ObjectIdentifier(pair.publisher)] && live.newlyLive)
        live = fanOut.live()
        #expect(live.peers.count == 1 && !live.newlyLive)

        let payload: [UInt8] = [1, 2, 3]
        let result = payload.withUnsafeBytes {
            PeerFanOut.send(.video, payload: $0, timestamp: 0, marker: true, to: [pair.publisher, idle])
        }
        #expect(result.sent == 1 && result.failed == 1)

        #expect(fanOut.detach(pair.publisher) && !fanOut.detach(pair.publisher))
        #expect(fanOut.live().peers.isEmpty)
        #expect(fanOut.close()?.count == 1 && fanOut.close() == nil)
        #expect(throws: StreamingError.closed) { try fanOut.attach(pair.publisher) }
        pair.close()
        await pair.finished()
    }
}
