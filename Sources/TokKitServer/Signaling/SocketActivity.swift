import NIOCore
import Synchronization

/// When a socket last received bytes from its client, stamped by the network thread as they arrive.
///
/// The heartbeat (Docs/Protocol.md 6.2.4) judges a client by what it sends. The registry sees a message only once
/// the socket's reader has decoded it and the registry's turn has come; when a large session is busy (everyone
/// signalling at once in a session of hundreds) that can be seconds later than its arrival, and a client that pinged
/// on time would be taken for silent. This handler sits first in the socket's pipeline and stamps every read as it
/// happens, so ``SessionRegistry/sweep(now:)`` judges arrival, not processing. It forwards everything unchanged.
///
/// `Sendable`: one atomic, written on the channel's event loop, read by the registry.
final class SocketActivity: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    /// Instants are kept as nanoseconds since this one.
    private let epoch: ContinuousClock.Instant
    private let nanoseconds = Atomic<Int64>(0)

    init(now: ContinuousClock.Instant = .now) {
        epoch = now
    }

    /// Records bytes received at `now` (never moves back).
    func heard(at now: ContinuousClock.Instant) {
        let (seconds, attoseconds) = (now - epoch).components
        let value = seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
        _ = nanoseconds.max(value, ordering: .relaxed)
    }

    /// The last time bytes were received (the creation time before any).
    var lastHeard: ContinuousClock.Instant { epoch + .nanoseconds(nanoseconds.load(ordering: .relaxed)) }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        heard(at: .now)
        context.fireChannelRead(data)
    }
}
