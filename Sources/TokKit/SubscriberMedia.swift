import Synchronization
import TokKitPeer

/// A subscriber's media engine: the peer connection its stream arrives on.
///
/// ## Threading
/// ``attach(_:channel:)`` and ``detach(_:)`` come from the negotiation queue; state is lock-guarded.
final class SubscriberMedia: Sendable {
    private let current = Mutex<PeerConnection?>(nil)

    /// Receives `peer`'s media.
    func attach(_ peer: PeerConnection, channel: NegotiationChannel) {
        current.withLock { $0 = peer }
    }

    /// Stops receiving from `peer`.
    func detach(_ peer: PeerConnection) {
        current.withLock { if $0 === peer { $0 = nil } }
    }

    /// The peer media arrives on, while attached.
    var peer: PeerConnection? { current.withLock { $0 } }
}
