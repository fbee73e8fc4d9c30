import Synchronization
import TokKitPeer

/// The peers one send pipeline feeds, the same for audio and video: attached and detached from any thread, read by
/// the sending thread with one lock per frame or packet, and each encoded packet sent to all of them.
///
/// Only connected peers are fed: a peer attached while it still negotiates goes *live* the first time the
/// sending thread looks (``live()``) after it connected, and that look says so (the video pipeline starts it with a
/// keyframe). Until then checking costs one atomic load. The live list is rebuilt only when it changes, so the
/// sending thread copies a reference, never an array. Allocates nothing per packet.
final class PeerFanOut: Sendable {
    /// What the sending thread needs: the live peers, whether one went live with this look, and whether any peer
    /// is attached at all (live or still negotiating).
    struct Live {
        let peers: [PeerConnection]
        let newlyLive: Bool
        let anyAttached: Bool
    }

    private struct Member {
        let peer: PeerConnection
        var live = false
    }

    private struct State {
        var members: [Member] = []
        var live: [PeerConnection] = []
        var closed = false
    }

    private let state = Mutex(State())
    /// A member is waiting to go live.
    private let waiting = Atomic<Bool>(false)
    /// Bumped by every detach (under the lock, after the member is gone), so a sending thread holding peers taken
    /// earlier sees with one atomic load whether one of them may have left since.
    private let detachCount = Atomic<Int>(0)

    /// Adds `peer`; false when it is already attached. Throws ``StreamingError/closed`` after ``close()``.
    func attach(_ peer: PeerConnection) throws(StreamingError) -> Bool {
        let added = try state.withLock { (s: inout State) throws(StreamingError) -> Bool in
            guard !s.closed else { throw .closed }
            guard !s.members.contains(where: { $0.peer === peer }) else { return false }
            s.members.append(Member(peer: peer))
            return true
        }
        if added { waiting.store(true, ordering: .releasing) }
        return added
    }

    /// Removes `peer`; false when it was not attached.
    func detach(_ peer: PeerConnection) -> Bool {
        state.withLock { s in
            guard let i = s.members.firstIndex(where: { $0.peer === peer }) else { return false }
            s.members.remove(at: i)
            if s.live.contains(where: { $0 === peer }) { s.live = s.members.filter(\.live).map(\.peer) }
            detachCount.add(1, ordering: .releasing)
            return true
        }
    }

    /// How many detaches there have been.
    var detachments: Int { detachCount.load(ordering: .acquiring) }

    /// The attached peers (live or not) and ``detachments``, read together.
    func attached() -> (peers: [PeerConnection], detachments: Int) {
        state.withLock { s in (s.members.map(\.peer), detachCount.load(ordering: .relaxed)) }
    }

    /// Detaches every peer and returns them; later attaches throw. Nil when already closed.
    func close() -> [PeerConnection]? {
        state.withLock { s in
            guard !s.closed else { return nil }
            s.closed = true
            defer { s.members = []; s.live = [] }
            return s.members.map(\.peer)
        }
    }

    /// The attached peers, live or not.
    var peers: [PeerConnection] { state.withLock { $0.members.map(\.peer) } }

    /// How many peers are attached.
    var count: Int { state.withLock { $0.members.count } }

    /// The live peers, after promoting those that connected since the last look (sending thread).
    func live() -> Live {
        let check = waiting.load(ordering: .acquiring)
        return state.withLock { s in
            guard check else { return Live(peers: s.live, newlyLive: false, anyAttached: !s.members.isEmpty) }
            var newlyLive = false, stillWaiting = false
            for i in s.members.indices where !s.members[i].live {
                if s.members[i].peer.state == .connected {
                    s.members[i].live = true
                    newlyLive = true
                } else {
                    stillWaiting = true
                }
            }
            if newlyLive { s.live = s.members.filter(\.live).map(\.peer) }
            if !stillWaiting { waiting.store(false, ordering: .releasing) }
            return Live(peers: s.live, newlyLive: newlyLive, anyAttached: !s.members.isEmpty)
        }
    }

    /// Sends one RTP payload on `kind` to each of `peers`; returns how many sends succeeded and failed.
    /// With `attached`, only the peers among them (identity) are sent to: the others were detached since `peers`
    /// was taken.
    static func send(_ kind: MediaKind, payload: UnsafeRawBufferPointer, timestamp: UInt32, marker: Bool,
                     to peers: [PeerConnection], attached: [PeerConnection]? = nil) -> (sent: Int, failed: Int) {
        var sent = 0, failed = 0
        for peer in peers {
            if let attached, !attached.contains(where: { $0 === peer }) { continue }
            do throws(PeerError) {
                try peer.sendRTP(kind, payload: payload, timestamp: timestamp, marker: marker)
                sent += 1
            } catch {
                failed += 1
            }
        }
        return (sent, failed)
    }

    /// Sends one RTP payload of simulcast video layer `layer` of `layers` (0: the smallest) to each of `peers`:
    /// a peer that negotiated fewer layers gets the top ones (its top layer is ours), and a peer without
    /// simulcast only the full-size layer; with `attached`, only the peers among them. Returns how many sends
    /// succeeded and failed. Allocates nothing.
    static func sendVideoLayer(_ layer: Int, of layers: Int, payload: UnsafeRawBufferPointer, timestamp: UInt32,
                               marker: Bool, to peers: [PeerConnection],
                               attached: [PeerConnection]? = nil) -> (sent: Int, failed: Int) {
        var sent = 0, failed = 0
        for peer in peers {
            if let attached, !attached.contains(where: { $0 === peer }) { continue }
            let peerLayer = layer - (layers - 1 - peer.configuration.videoSimulcastSSRCs.count)
            guard peerLayer >= 0 else { continue }
            do throws(PeerError) {
                try peer.sendVideoLayerRTP(peerLayer, payload: payload, timestamp: timestamp, marker: marker)
                sent += 1
            } catch {
                failed += 1
            }
        }
        return (sent, failed)
    }
}
