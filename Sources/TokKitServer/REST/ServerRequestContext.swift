import Hummingbird
import NIOCore

/// The request context of the server's router: Hummingbird's basic context plus the peer's address (the key of the
/// quick-start rate limit, ``QuickStartLimiter``). Routes take any `RequestContext` and read the address through
/// `RemoteAddressRequestContext`, so they also run on a plain router (tests).
struct ServerRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}

extension RequestContext {
    /// The peer's IP address, when the context knows it.
    var peerAddress: String? {
        (self as? any RemoteAddressRequestContext)?.remoteAddress?.ipAddress
    }
}
