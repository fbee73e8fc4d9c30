import HummingbirdCore
import Logging
import NIOCore
import TokKitProtocol

/// Wraps the server's HTTP + WebSocket child channel (Hummingbird's `HTTP1WebSocketUpgradeChannel`) with the
/// connection layer's defences: each accepted connection is first counted by the ``ConnectionLimiter`` (over a cap
/// it gets a ``RefusalHandler`` instead: 503 and closed), then set up as usual with a ``RequestGuard`` added after
/// the HTTP decoder and the upgrade handler (deadlines, 400 to a malformed first request).
///
/// `Sendable`; one value serves every connection.
struct GuardedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    /// A connection set up: admitted (the inner channel's value) or refused.
    enum Value: ServerChildChannelValue {
        case admitted(Inner.Value)
        case refused(any Channel)

        var channel: any Channel {
            switch self {
            case let .admitted(value): value.channel
            case let .refused(channel): channel
            }
        }
    }

    let inner: Inner
    let limiter: ConnectionLimiter
    let timeouts: RequestGuard.Timeouts
    /// Counts refused and malformed connections and missed deadlines.
    let metrics: ServerMetrics

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = channel.remoteAddress?.ipAddress
        let connection = ObjectIdentifier(channel)
        let admission: ConnectionLimiter.Admission
        do throws(ConnectionLimiter.Refusal) {
            admission = try limiter.admit(address, connection: connection)
        } catch {
            // Debug, not notice: under a flood a line per refused connection would be one more thing to exhaust.
            logger.debug("connection refused", metadata: ["peer": "\(address ?? "?")", "reason": "\(error)"])
            metrics.refused(.limitReached, via: .http)
            return channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(RefusalHandler(reply: .refused(error)))
                return .refused(channel)
            }
        }
        channel.closeFuture.whenComplete { [limiter] _ in limiter.release(connection) }
        if admission == .probation {
            // Over its address's cap on a recorder ticket: closed unless it showed the recorder's credential by then.
            channel.eventLoop.scheduleTask(in: timeouts.head) { [limiter] in
                if limiter.isOnProbation(connection) { channel.close(promise: nil) }
            }
        }
        let timeouts = timeouts, metrics = metrics
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(RequestGuard(timeouts: timeouts, metrics: metrics))
            return .admitted(value)
        }
    }

    func handle(value: Value, logger: Logger) async {
        guard case let .admitted(inner) = value else { return }
        await self.inner.handle(value: inner, logger: logger)
    }
}
