import TokKitICE
import TokKitProtocol

/// Everything a ``Session`` knows, guarded by its lock. Only `Session` touches it.
struct SessionState {
    /// A request waiting for its `ack` or `error`.
    struct Pending {
        enum Purpose {
            case signal(retry: Bool)
            case publish(Publisher)
            case subscribe(Subscriber, streamID: StreamID)
            case other
        }

        var purpose: Purpose
        /// The encoded request, kept to resend a retried signal after a reconnect.
        var text: String
        var continuation: CheckedContinuation<Result<ServerMessage.Ack, SessionError>, Never>
    }

    var status: SessionConnectionStatus = .notConnected
    /// The current socket, if any; messages from older generations are ignored.
    var link: SignalingLink?
    var generation: UInt64 = 0
    /// Waiting for `connected` (a first connect or a resume attempt).
    var opening: CheckedContinuation<Result<Void, SessionError>, Never>?
    /// An `error` the server sent while opening, reported when the socket closes.
    var openingError: SessionError?
    /// The server destroyed this connection (force disconnect): the coming close is final.
    var closedByServer = false
    var disconnectWaiters: [CheckedContinuation<Void, Never>] = []
    var reconnectTask: Task<Void, Never>?
    /// Watches the local addresses while connected (or reconnecting).
    var networkMonitor: NetworkChangeMonitor?
    /// Delivers statistics once a second while connected.
    var statisticsTimer: Task<Void, Never>?

    // What the server told us.
    var me: Connection?
    var role: Role?
    var resumeToken: String?
    var resumeGrace: Duration = .zero
    /// The STUN/TURN servers of the last `connected` (fresh TURN credentials on every one).
    var iceServers: [ICEServer] = []
    /// Numeric addresses of the ICE servers' host names, resolved ahead so that no agent looks one up.
    var resolvedHosts: [String: String] = [:]
    /// ICE server host names that did not resolve: left out of media connections rather than looked up again.
    var unresolvableHosts: Set<String> = []
    /// Resolving the names of the last `connected`'s (and the settings') ICE servers; media setup waits for it.
    var iceResolution: Task<Void, Never>?
    /// How many resolutions are still running (0: nothing to wait for).
    var iceResolutionsRunning = 0
    /// The other connections, by id, and the order they joined in.
    var connections: [ConnectionID: Connection] = [:]
    var connectionOrder: [ConnectionID] = []
    /// Every live stream, this client's own included.
    var streams: [StreamID: SessionStream] = [:]

    // Registries.
    /// This client's publishers, by stream id.
    var publishers: [StreamID: Publisher] = [:]
    /// `publish` acked, own `streamCreated` not seen yet: the caller waits for it.
    var awaitingStream: [StreamID: CheckedContinuation<Result<ServerMessage.Ack, SessionError>, Never>] = [:]
    /// This client's subscribers, by subscriber id, and their negotiation contexts.
    var subscribers: [SubscriberID: Subscriber] = [:]
    var subscriberContexts: [SubscriberID: MediaNegotiationContext] = [:]
    /// Subscriptions to this client's streams (by others, or by itself), by subscriber id.
    var publisherSides: [SubscriberID: MediaNegotiationContext] = [:]
    /// Routed streams of this client: the upstream negotiation's id (a key of ``publisherSides``) → its stream.
    var upstreams: [SubscriberID: StreamID] = [:]
    /// For subscriptions to its own streams: which end sent each negotiation message still in flight, oldest first.
    var loopbackSenders: [SubscriberID: ArraySlice<MediaNegotiationContext.Side>] = [:]

    var pending: [Int: Pending] = [:]
    /// Heartbeat answers received (for tests and diagnostics).
    var pongs = 0
    var nextRid = 1

    mutating func makeRid() -> Int {
        defer { nextRid = nextRid == Int.max ? 1 : nextRid + 1 }
        return nextRid
    }

    var capabilities: SessionCapabilities {
        guard status == .connected || status == .reconnecting, let role else { return .none }
        return SessionCapabilities(role)
    }

    mutating func addConnection(_ c: Connection) -> Bool {
        guard connections[c.connectionID] == nil, c.connectionID != me?.connectionID else { return false }
        connections[c.connectionID] = c
        connectionOrder.append(c.connectionID)
        return true
    }

    mutating func removeConnection(_ id: ConnectionID) -> Connection? {
        guard let c = connections.removeValue(forKey: id) else { return nil }
        connectionOrder.removeAll { $0 == id }
        return c
    }

    /// The connection with that id: ours or another's.
    func connection(_ id: ConnectionID) -> Connection? {
        if let me, me.connectionID == id { return me }
        return connections[id]
    }

    /// The sender of a message: the known connection, or a bare one when it is unknown here (already gone).
    func sender(_ id: ConnectionID) -> Connection {
        connection(id) ?? Connection(connectionID: id, creationTime: .init(millisecondsSince1970: 0), data: "")
    }
}
