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

    /// Each detach bumps the count a sending thread compares with the one its packet was taken under; the attached
    /// list it then sends to leaves the detached peer out (`send(…, attached:)` skips peers not in it, uncounted).
    @Test func detachesAreCountedAndADetachedPeerIsLeftOutOfASend() async throws {
        let fanOut = PeerFanOut()
        let pair = try await LoopbackPeerPair.connect()
        defer { pair.close() }
        let other = try await LoopbackPeerPair.connect()
        defer { other.close() }
        #expect(try fanOut.attach(pair.publisher) && fanOut.attach(other.publisher))
        let taken = fanOut.live().peers, before = fanOut.detachments
        #expect(taken.count == 2 && before == 0)
        #expect(!fanOut.detach(try PeerConnection()), "an unknown peer")
        #expect(fanOut.detachments == 0)
        #expect(fanOut.detach(pair.publisher))
        let attached = fanOut.attached()
        #expect(fanOut.detachments == 1 && attached.detachments == 1)
        #expect(attached.peers.map(ObjectIdentifier.init) == [ObjectIdentifier(other.publisher)])
        let payload: [UInt8] = [1, 2, 3]
        let result = payload.withUnsafeBytes {
            PeerFanOut.send(.video, payload: $0, timestamp: 0, marker: true, to: taken, attached: attached.peers)
        }
        #expect(result.sent == 1 && result.failed == 0)
        #expect(pair.publisher.statistics(.video).packetsSent == 0)
        #expect(other.publisher.statistics(.video).packetsSent == 1)
        let layered = payload.withUnsafeBytes {
            PeerFanOut.sendVideoLayer(0, of: 1, payload: $0, timestamp: 0, marker: true, to: taken,
                                      attached: attached.peers)
        }
        #expect(layered.sent == 1 && pair.publisher.statistics(.video).packetsSent == 0)
    }
}
