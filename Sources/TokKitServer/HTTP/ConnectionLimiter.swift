import Synchronization

/// Counts the server's open TCP connections (HTTP and WebSocket alike), in total and per peer address, and admits a
/// new one only while both stay within ``ServerConfiguration/maxConnections`` and
/// ``ServerConfiguration/maxConnectionsPerAddress``.
///
/// The server's own archive recorder (a client of the session it records, connecting from 127.0.0.1 like any local
/// client) is not counted against its address: it shows ``recorderCredential``, a secret this server holds and
/// hands only to its recorder, in the request that upgrades its signaling WebSocket (``exemptRecorder(_:showing:)``),
/// and from then on counts in the total only. So that a busy address cannot make a recording fail, the archive
/// service holds a recorder ticket while a recorder joins (``grantRecorderTicket()``): a connection over its
/// address's cap from an address the recorder connects from (``recorderAddresses``: loopback, or the server's own
/// listening address) is then admitted on probation (at most one per ticket) and closed unless it shows the
/// credential within its probation; any other address at its cap stays refused, so a remote client cannot take the
/// recorder's slot. Nothing a client claims lifts a limit: only the credential, which never leaves the process.
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

    /// How a connection is counted.
    enum Admission: Sendable, Equatable {
        /// Against its peer address and in the total.
        case counted
        /// Over its address's cap on a recorder ticket: in the total only, until it shows the recorder credential
        /// (then ``recorder``) or is closed at the end of its probation.
        case probation
        /// The server's archive recorder: in the total only.
        case recorder
    }

    /// The request header field in which the recorder shows ``recorderCredential``.
    static let recorderHeader = "X-TokKit-Recorder"

    let maxTotal: Int
    let maxPerAddress: Int
    /// The secret the server's own archive recorder shows (random, per server; never sent to a client).
    let recorderCredential = RandomID.make(bytes: 32)

    private struct Counts {
        var total = 0
        var byAddress: [String: Int] = [:]
        /// Every admitted connection (keyed by its channel): its address and how it is counted.
        var connections: [ObjectIdentifier: (address: String?, admission: Admission)] = [:]
        /// Recorders joining now (each may bring one connection over its address's cap).
        var tickets = 0
        /// Connections on probation now (at most ``tickets``).
        var probation = 0
        /// The peer addresses the recorder's connections come from (``recorderAddresses``).
        var recorderAddresses: Set<String> = []
    }

    private let counts = Mutex(Counts())

    init(maxTotal: Int, maxPerAddress: Int) {
        self.maxTotal = maxTotal
        self.maxPerAddress = maxPerAddress
    }

    /// Counts one more connection, `connection` (its channel's identity), from `address` (nil: an address the socket
    /// did not report, counted in the total only), or refuses it and counts nothing.
    @discardableResult
    func admit(_ address: String?, connection: ObjectIdentifier) throws(Refusal) -> Admission {
        try counts.withLock { counts throws(Refusal) in
            guard counts.total < maxTotal else { throw .serverFull }
            var admission = Admission.counted
            if let address {
                let held = counts.byAddress[address, default: 0]
                if held < maxPerAddress {
                    counts.byAddress[address] = held + 1
                } else {
                    guard counts.probation < counts.tickets, counts.recorderAddresses.contains(address) else {
                        throw .addressFull
                    }
                    counts.probation += 1
                    admission = .probation
                }
            }
            counts.total += 1
            counts.connections[connection] = (address, admission)
            return admission
        }
    }

    /// Forgets admitted connection `connection` (its channel closed). Idempotent.
    func release(_ connection: ObjectIdentifier) {
        counts.withLock { counts in
            guard let (address, admission) = counts.connections.removeValue(forKey: connection) else { return }
            counts.total -= 1
            switch admission {
            case .counted:
                guard let address, let held = counts.byAddress[address] else { return }
                counts.byAddress[address] = held > 1 ? held - 1 : nil
            case .probation:
                counts.probation -= 1
            case .recorder:
                break
            }
        }
    }

    /// Connection `connection` showed `credential` in its signaling upgrade: when it is ``recorderCredential``, the
    /// connection is the recorder's and stops counting against its address (its probation ends). Whether it was.
    @discardableResult
    func exemptRecorder(_ connection: ObjectIdentifier, showing credential: String) -> Bool {
        guard Self.equalInConstantTime(credential, recorderCredential) else { return false }
        return counts.withLock { counts in
            guard let (address, admission) = counts.connections[connection] else { return false }
            switch admission {
            case .counted:
                if let address, let held = counts.byAddress[address] {
                    counts.byAddress[address] = held > 1 ? held - 1 : nil
                }
            case .probation:
                counts.probation -= 1
            case .recorder:
                return true
            }
            counts.connections[connection] = (address, .recorder)
            return true
        }
    }

    /// Whether `connection` is still on probation (its deadline passed: it is then closed).
    func isOnProbation(_ connection: ObjectIdentifier) -> Bool {
        counts.withLock { $0.connections[connection]?.admission == .probation }
    }

    /// The peer addresses the server's recorder connects from (as the socket reports them): the only ones a
    /// connection over its address's cap may come from on a recorder ticket. Empty until the server sets them
    /// (``TokKitServer`` when it starts listening: loopback, or its own listening address).
    var recorderAddresses: Set<String> {
        get { counts.withLock { $0.recorderAddresses } }
        set { counts.withLock { $0.recorderAddresses = newValue } }
    }

    /// A recorder is about to join: one connection may come over its address's cap until
    /// ``returnRecorderTicket()``.
    func grantRecorderTicket() {
        counts.withLock { $0.tickets += 1 }
    }

    /// The recorder that had a ticket joined (or failed to).
    func returnRecorderTicket() {
        counts.withLock { $0.tickets = max(0, $0.tickets - 1) }
    }

    /// Connections open now (in total).
    var open: Int { counts.withLock { $0.total } }

    /// Connections counted against `address` now.
    func held(by address: String) -> Int { counts.withLock { $0.byAddress[address, default: 0] } }

    private static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}
