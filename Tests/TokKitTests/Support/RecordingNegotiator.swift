import Synchronization
@_spi(Testing) import TokKit

/// A `MediaNegotiator` that behaves like `PlaceholderNegotiator` and records every call.
final class RecordingNegotiator: MediaNegotiator {
    enum Call: Sendable, Equatable {
        case started(MediaNegotiationContext)
        case received(MediaNegotiationContext, NegotiationMessage)
        case ended(MediaNegotiationContext)
    }

    private let calls = Mutex<[Call]>([])
    private let placeholder = PlaceholderNegotiator()

    var all: [Call] { calls.withLock { $0 } }

    func negotiationDidStart(_ context: MediaNegotiationContext, channel: NegotiationChannel) {
        calls.withLock { $0.append(.started(context)) }
        placeholder.negotiationDidStart(context, channel: channel)
    }

    func negotiation(_ context: MediaNegotiationContext, didReceive message: NegotiationMessage,
                     channel: NegotiationChannel) {
        calls.withLock { $0.append(.received(context, message)) }
        placeholder.negotiation(context, didReceive: message, channel: channel)
    }

    func negotiationDidEnd(_ context: MediaNegotiationContext) {
        calls.withLock { $0.append(.ended(context)) }
    }
}
