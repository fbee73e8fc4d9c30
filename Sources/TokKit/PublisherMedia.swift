import Synchronization
import TokKitPeer

/// A publisher's media engine: the peer connections of its subscriptions, which its encoders send to.
///
/// ## Threading
/// ``attach(_:audio:video:)`` and ``detach(_:)`` come from negotiation queues; the peer list is guarded by a lock.
final class PublisherMedia: Sendable {
    private struct Attached: Sendable {
        let peer: PeerConnection
        let audio: Bool
        let video: Bool
    }

    private let peers = Mutex<[ObjectIdentifier: Attached]>([:])

    /// Sends the publisher's media to `peer` (only the kinds its subscriber wants).
    func attach(_ peer: PeerConnection, audio: Bool, video: Bool) {
        peers.withLock { $0[ObjectIdentifier(peer)] = Attached(peer: peer, audio: audio, video: video) }
    }

    /// Stops sending to `peer`.
    func detach(_ peer: PeerConnection) {
        _ = peers.withLock { $0.removeValue(forKey: ObjectIdentifier(peer)) }
    }

    /// How many peers are attached.
    var peerCount: Int { peers.withLock { $0.count } }
}
