import Synchronization

/// Counts the server's open TCP connections (HTTP and WebSocket alike), in total and per peer address, and admits a
/// new one only while both stay within ``ServerConfiguration/maxConnections`` and
/// ``ServerConfiguration/maxConnectionsPerAddress``.
///
/// Thread-safe (`Sendable`): the counts are guarded by a `Mutex`, held only to compare and count. A connection
/// admitted is released exactly once, when its channel closes.
final class ConnectionLimiter: Sendable {
    /// Why a connection was refused.
    enum Refusal: Error, Equatable, Sendable {
        /// The server holds ``ConnectionLimiter/maxTotal`` connections.
        case serverFull
        /// The peer address holds ``ConnectionLimiter/maxPerAddress`` connections.
        case addressFull
    }

    let maxTotal: Int
    let maxPerAddress: Int
    private let counts = Mutex<(total: Int, byAddress: [String: Int])>((0, [:]))

    init(maxTotal: Int, maxPerAddress: Int) {
        self.maxTotal = maxTotal
        self.maxPerAddress = maxPerAddress
    }

    /// Counts one more connection from `address` (nil: an address the socket did not report, counted in the total
    /// only), or refuses it and counts nothing.
    func admit(_ address: String?) throws(Refusal) {
        try counts.withLock { counts throws(Refusal) in
            guard counts.total < maxTotal else { throw .serverFull }
            if let address {
                let held = counts.byAddress[address, default: 0]
                guard held < maxPerAddress else { throw .addressFull }
                counts.byAddress[address] = held + 1
            }
            counts.total += 1
        }
    }

    /// Forgets one admitted connection from `address`.
    func release(_ address: String?) {
        counts.withLock { counts in
            counts.total -= 1
            guard let address, let held = counts.byAddress[address] else { return }
            counts.byAddress[address] = held > 1 ? held - 1 : nil
        }
    }

    /// Connections open now (in total).
    var open: Int { counts.withLock { $0.total } }
}
