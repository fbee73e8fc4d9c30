import CNice
import Synchronization

/// A full ICE agent (RFC 8445) over libnice for one BUNDLEd, rtcp-muxed transport: one stream, one
/// component, UDP only, trickle ICE (RFC 8838) and consent freshness (RFC 7675).
///
/// Use: create with a role and a configuration, read ``localCredentials``, start ``gatherCandidates()`` and
/// trickle each ``ICEEvent/localCandidate(_:)`` from ``events`` to the peer; give the peer's credentials to
/// ``setRemoteCredentials(_:)`` and its candidates to ``addRemoteCandidate(_:)`` as they arrive, then
/// ``addRemoteEndOfCandidates()``. Once ``state`` is ``ICEState/connected``, ``send(_:)`` datagrams;
/// received ones go to the handler set with ``setReceiveHandler(_:)``.
///
/// Threading: every method may be called from any thread. Each agent runs libnice's GLib main context on its
/// own thread (named `tk-ice-<n>`, see ``networkThreadName``), the agent's network thread: received datagrams are handed to the receive
/// handler there, one call per datagram, with no task or allocation in between, and work passed to
/// ``schedule(after:_:)`` and ``schedule(every:_:)`` runs there too. ``events`` is a control-plane stream.
/// ``close()`` (or deinit) stops the thread and waits for it, except when called on the network thread itself.
public final class ICEAgent: Sendable {
    /// The role given at creation.
    public let role: ICERole
    /// The name of this agent's network thread, `tk-ice-<n>` with `n` counting agents in the process (as
    /// shown by `top -H`, `gdb` and `/proc/self/task/*/comm`).
    public let networkThreadName: String
    /// Candidates, end of gathering, state changes and selected pairs, in order. Finishes after
    /// ``close()``.
    public let events: AsyncStream<ICEEvent>

    private let loop: GLibLoop
    private let core: ICEAgentCore
    private let agent: NiceAgentHandle
    private let streamID: UInt32

    /// Creates the agent and its network thread. ICE server URLs should name numeric addresses
    /// (``ICEHostResolver`` resolves names ahead, off the control plane); a host name still found here is resolved
    /// on this thread, blocking.
    public init(role: ICERole, configuration: ICEConfiguration = .loopback) throws(ICEError) {
        let plan = try AgentPlan(configuration)
        self.role = role
        networkThreadName = "tk-ice-\(Self.agentCount.add(1, ordering: .relaxed).newValue % 100_000_000)"
        loop = GLibLoop(name: networkThreadName, batching: configuration.receiveBatching)
        var options = NICE_AGENT_OPTION_ICE_TRICKLE.rawValue | NICE_AGENT_OPTION_REGULAR_NOMINATION.rawValue
        if configuration.consentFreshness { options |= NICE_AGENT_OPTION_CONSENT_FRESHNESS.rawValue }
        guard let raw = nice_agent_new_full(loop.context, NICE_COMPATIBILITY_RFC5245, NiceAgentOption(options))
        else {
            loop.quit(); loop.join()
            throw .agentCreationFailed
        }
        agent = NiceAgentHandle(pointer: raw)
        streamID = nice_agent_add_stream(raw, 1)
        let (stream, continuation) = AsyncStream.makeStream(of: ICEEvent.self)
        events = stream
        core = ICEAgentCore(agent: agent, streamID: streamID, continuation: continuation,
                            batching: configuration.receiveBatching)
        do {
            try configure(plan, configuration)
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    private static let agentCount = Atomic<Int>(0)

    /// The agent's current state.
    public var state: ICEState { core.control.withLock { $0.state } }

    /// The pair media takes, once ICE selected one (it may change while connected, and after ``restart()``).
    public var selectedPair: ICECandidatePair? { core.selectedPair.withLock { $0 } }

    /// Whether the caller runs on this agent's network thread.
    public var isOnNetworkThread: Bool { loop.isCurrent }

    /// The local ufrag/pwd to put in SDP (they change with ``restart()``).
    public var localCredentials: ICECredentials {
        get throws(ICEError) {
            try withAgent { a throws(ICEError) in
                var ufrag: UnsafeMutablePointer<gchar>?
                var pwd: UnsafeMutablePointer<gchar>?
                guard nice_agent_get_local_credentials(a, streamID, &ufrag, &pwd) != 0, let ufrag, let pwd else {
                    throw .agentCreationFailed
                }
                defer { g_free(ufrag); g_free(pwd) }
                return ICECredentials(trusted: String(cString: ufrag), pwd: String(cString: pwd))
            }
        }
    }

    /// Sets the handler that receives datagrams (on the network thread; the buffer is valid only during the
    /// call). `nil` drops them.
    public func setReceiveHandler(_ handler: (@Sendable (UnsafeRawBufferPointer) -> Void)?) {
        core.receiver.withLock { $0 = handler.map(ICEAgentCore.Receiver.init) }
    }

    /// When the datagram being handled arrived, in CLOCK_MONOTONIC nanoseconds (``PeerClock``-style monotonic time),
    /// for an agent that batches its reads (``ICEConfiguration/receiveBatching``): read from the receive handler (on
    /// the network thread) only; `nil` there without batching and anywhere else. A batching agent reads a datagram
    /// up to an interval after it came, so the clock at the handler is not its arrival: this is the kernel's receive
    /// timestamp of the selected pair's UDP socket, taken right after libnice read the datagram (or the clock then
    /// when no stamp fits: see ``ICEReceiveStatistics``). Never earlier than the previous datagram's.
    public var receivedDatagramArrival: UInt64? {
        let at = core.currentArrival.load(ordering: .relaxed)
        return at == 0 || !loop.isCurrent ? nil : at
    }

    /// Batching sleeps and how received datagrams were timed (zeros without batching). Any thread.
    public var receiveStatistics: ICEReceiveStatistics {
        let sleeps = loop.batchingCounts, timed = core.arrivalCounts
        return ICEReceiveStatistics(batchingSleeps: sleeps.sleeps, sleepsEndedByWakeup: sleeps.endedByWakeup,
                                    kernelTimedDatagrams: timed.kernel, clockTimedDatagrams: timed.clock)
    }

    /// Binds the host sockets and starts gathering; candidates arrive as ``ICEEvent/localCandidate(_:)``
    /// events, then ``ICEEvent/gatheringComplete``.
    public func gatherCandidates() throws(ICEError) {
        try withAgent { a throws(ICEError) in
            guard nice_agent_gather_candidates(a, streamID) != 0 else { throw .gatheringFailed }
        }
    }

    /// Sets the peer's ufrag/pwd (from its SDP). Call it again after a restart.
    public func setRemoteCredentials(_ credentials: ICECredentials) throws(ICEError) {
        try withAgent { a throws(ICEError) in
            guard nice_agent_set_remote_credentials(a, streamID, credentials.ufrag, credentials.pwd) != 0 else {
                throw .invalidCredentials
            }
        }
    }

    /// Adds one trickled remote candidate: `candidate:…`, with or without the `a=` prefix.
    public func addRemoteCandidate(_ candidate: String) throws(ICEError) {
        var line = candidate
        while let last = line.last, last.isNewline || last == " " { line.removeLast() }
        if !line.hasPrefix("a=") { line = "a=" + line }
        try withAgent { a throws(ICEError) in
            guard let parsed = nice_agent_parse_remote_candidate_sdp(a, streamID, line) else {
                throw .invalidCandidate(candidate)
            }
            defer { nice_candidate_free(parsed) }
            guard parsed.pointee.component_id == 1 else {
                throw .unsupportedComponent(Int(parsed.pointee.component_id))
            }
            guard parsed.pointee.transport == NICE_CANDIDATE_TRANSPORT_UDP else {
                throw .unsupportedTransport(candidate)
            }
            let list = g_slist_append(nil, parsed)
            defer { g_slist_free(list) }
            guard nice_agent_set_remote_candidates(a, streamID, 1, list) >= 0 else {
                throw .invalidCandidate(candidate)
            }
        }
    }

    /// The peer signalled end-of-candidates: checks that have nothing left to try may now fail.
    public func addRemoteEndOfCandidates() throws(ICEError) {
        try withAgent { a in _ = nice_agent_peer_candidate_gathering_done(a, streamID) }
    }

    /// ICE restart (RFC 8445 §9): new local credentials, remote candidates forgotten, checks start over once
    /// the peer's new credentials and candidates are added. Call it when initiating a restart and when the
    /// peer's ufrag changes. The local candidates are re-announced as events, followed by
    /// ``ICEEvent/gatheringComplete``. Returns the new credentials.
    @discardableResult
    public func restart() throws(ICEError) -> ICECredentials {
        let candidates: [ICECandidate] = try withAgent { a throws(ICEError) in
            guard nice_agent_restart_stream(a, streamID) != 0 else { throw .agentCreationFailed }
            var out: [ICECandidate] = []
            let list = nice_agent_get_local_candidates(a, streamID, 1)
            var node = list
            while let n = node {
                let c = n.pointee.data.assumingMemoryBound(to: NiceCandidate.self)
                if let d = Self.describe(c, agent: a) { out.append(d) }
                nice_candidate_free(c)
                node = n.pointee.next
            }
            g_slist_free(list)
            return out
        }
        for c in candidates { core.emit(.localCandidate(c)) }
        core.emit(.gatheringComplete)
        return try localCredentials
    }

    /// Sends one datagram on the selected pair. Callable from any thread; nothing is allocated.
    @inline(__always)
    public func send(_ datagram: UnsafeRawBufferPointer) throws(ICEError) {
        guard datagram.count <= 65_535 else { throw .datagramTooLarge(datagram.count) }
        let sent: Int32? = core.sendPath.withLock { h in
            guard let h else { return nil }
            return nice_agent_send(h.pointer, streamID, 1, UInt32(datagram.count),
                                   datagram.baseAddress?.assumingMemoryBound(to: gchar.self))
        }
        guard let sent else { throw .closed }
        guard Int(sent) == datagram.count else { throw .sendFailed }
    }

    /// Runs `work` once on the network thread after `delay` (millisecond resolution). Dropped if the agent
    /// closes first. For protocol timers of the layers above (DTLS retransmission).
    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
        loop.schedule(after: delay, work)
    }

    /// Runs `work` on the network thread every `interval` (millisecond resolution, at least 1 ms) until it
    /// returns false or the agent closes. For periodic protocol timers (RTCP reports, transport-wide feedback):
    /// one timer for all runs, nothing allocated per run.
    public func schedule(every interval: Duration, _ work: @escaping @Sendable () -> Bool) {
        loop.schedule(every: interval, work)
    }

    /// Runs `work` on the network thread (inline if already there).
    public func perform(_ work: @escaping @Sendable () -> Void) {
        loop.invoke(work)
    }

    /// Stops everything: detaches the callbacks, releases TURN allocations (`nice_agent_close_async`), ends
    /// the network thread and waits for it (not when called on it). Reports ``ICEState/closed`` and finishes
    /// ``events``. Idempotent.
    public func close() {
        let handlers: [UInt]? = core.control.withLock { c in
            guard c.state != .closed else { return nil }
            c.state = .closed
            return c.signalHandlers
        }
        guard let handlers else { return }
        core.receiver.withLock { $0 = nil }
        core.sendPath.withLock { $0 = nil }  // waits for sends and control calls in flight
        let agent = agent, loop = loop, streamID = streamID
        loop.invoke {
            for h in handlers { tk_nice_disconnect(agent.pointer, gulong(h)) }
            _ = nice_agent_attach_recv(agent.pointer, streamID, 1, loop.context, nil, nil)
            nice_agent_close_async(agent.pointer, niceClosed, Unmanaged.passRetained(loop).toOpaque())
        }
        loop.join()
        core.releaseSocket()
        core.continuation.yield(.stateChanged(.closed))
        core.continuation.finish()
    }

    // MARK: - Private

    /// Runs `body` with the agent pointer while the agent is open (serialised with sends and ``close()``).
    private func withAgent<R>(_ body: (OpaquePointer) throws(ICEError) -> R) throws(ICEError) -> R {
        try core.sendPath.withLock { (h: inout NiceAgentHandle?) throws(ICEError) -> R in
            guard let h else { throw .closed }
            return try body(h.pointer)
        }
    }

    private func configure(_ plan: AgentPlan, _ configuration: ICEConfiguration) throws(ICEError) {
        let a = agent.pointer
        guard streamID != 0 else { throw .agentCreationFailed }
        tk_nice_set_bool(a, "controlling-mode", role == .controlling ? 1 : 0)
        tk_nice_set_bool(a, "ice-tcp", 0)
        tk_nice_set_bool(a, "upnp", 0)
        tk_nice_set_bool(a, "force-relay", configuration.transportPolicy == .relay ? 1 : 0)
        if let stun = plan.stun {
            tk_nice_set_string(a, "stun-server", stun.address)
            tk_nice_set_uint(a, "stun-server-port", UInt32(stun.port))
        }
        for address in plan.localAddresses {
            var addr = NiceAddress()
            nice_address_init(&addr)
            guard nice_address_set_from_string(&addr, address) != 0 else { throw .invalidAddress(address) }
            _ = nice_agent_add_local_address(a, &addr)
        }
        for relay in plan.relays {
            let type: NiceRelayType = switch relay.kind {
            case .turnTCP: NICE_RELAY_TYPE_TURN_TCP
            case .turnTLS: NICE_RELAY_TYPE_TURN_TLS
            default: NICE_RELAY_TYPE_TURN_UDP
            }
            guard nice_agent_set_relay_info(a, streamID, 1, relay.address, UInt32(relay.port), relay.username,
                                            relay.credential, type) != 0
            else { throw .relayRejected(relay.address) }
        }
        if let range = configuration.portRange {
            nice_agent_set_port_range(a, streamID, 1, UInt32(range.lowerBound), UInt32(range.upperBound))
        }
        if let creds = configuration.localCredentials {
            guard nice_agent_set_local_credentials(a, streamID, creds.ufrag, creds.pwd) != 0 else {
                throw .invalidCredentials
            }
        }
        let me = Unmanaged.passUnretained(core).toOpaque()
        guard nice_agent_attach_recv(a, streamID, 1, loop.context, niceReceive, me) != 0 else {
            throw .agentCreationFailed
        }
        let handlers = [
            tk_nice_connect_new_candidate(a, niceNewCandidate, me),
            tk_nice_connect_gathering_done(a, niceGatheringDone, me),
            tk_nice_connect_state_changed(a, niceStateChanged, me),
            tk_nice_connect_selected_pair(a, niceSelectedPair, me),
        ]
        core.control.withLock { $0.signalHandlers = handlers.map { UInt($0) } }
    }

    /// A local candidate of component 1 as TokKit describes it, or `nil` for other components.
    static func describe(_ c: UnsafeMutablePointer<NiceCandidate>, agent: OpaquePointer) -> ICECandidate? {
        guard c.pointee.component_id == 1, let text = nice_agent_generate_local_candidate_sdp(agent, c) else {
            return nil
        }
        defer { g_free(text) }
        var sdp = String(cString: text)
        if sdp.hasPrefix("a=") { sdp.removeFirst(2) }
        let end = endpoint(c)
        return ICECandidate(sdp: sdp, kind: end.kind, address: end.address, port: end.port)
    }

    /// The kind and transport address of a libnice candidate.
    static func endpoint(_ c: UnsafeMutablePointer<NiceCandidate>) -> ICECandidatePair.Endpoint {
        let kind: ICECandidate.Kind = switch c.pointee.type {
        case NICE_CANDIDATE_TYPE_SERVER_REFLEXIVE: .serverReflexive
        case NICE_CANDIDATE_TYPE_PEER_REFLEXIVE: .peerReflexive
        case NICE_CANDIDATE_TYPE_RELAYED: .relayed
        default: .host
        }
        var addr = c.pointee.addr
        return ICECandidatePair.Endpoint(kind: kind, address: address(addr), port: UInt16(nice_address_get_port(&addr)))
    }

    private static func address(_ addr: NiceAddress) -> String {
        var a = addr
        var text = [gchar](repeating: 0, count: 64)
        nice_address_to_string(&a, &text)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A configuration checked and resolved before any thread or socket exists.
struct AgentPlan {
    struct Relay {
        let kind: ICEServerURL.Kind
        let address: String
        let port: UInt16
        let username: String
        let credential: String
    }

    var stun: (address: String, port: UInt16)?
    var relays: [Relay] = []
    var localAddresses: [String] = []

    init(_ configuration: ICEConfiguration) throws(ICEError) {
        localAddresses = configuration.localAddresses
        if configuration.transportPolicy == .relay,
           !configuration.servers.contains(where: { $0.urls.contains { !$0.lowercased().hasPrefix("stun") } }) {
            throw .noRelayServer
        }
        if configuration.localAddresses.isEmpty, configuration.interfaces.isEmpty {
            localAddresses = Self.usableAddresses(includingLoopback: configuration.includesLoopback)
        }
        for name in configuration.interfaces {
            var cName = Array(name.utf8CString)
            guard let ip = cName.withUnsafeMutableBufferPointer({ nice_interfaces_get_ip_for_interface($0.baseAddress) })
            else {
                throw .unknownInterface(name)
            }
            localAddresses.append(String(cString: ip))
            g_free(ip)
        }
        for server in configuration.servers {
            for url in server.urls {
                let parsed = try ICEServerURL(parsing: url)
                let address = try HostResolver.numericAddress(parsed.host)
                if parsed.kind == .stun {
                    if stun == nil { stun = (address, parsed.port) }
                } else {
                    relays.append(Relay(kind: parsed.kind, address: address, port: parsed.port,
                                        username: server.username, credential: server.credential))
                }
            }
        }
    }

    /// The addresses of every interface that is up (libnice's discovery: IPv4 and non-link-local IPv6); IPv4
    /// loopback when asked for and nothing else is up (``choose(_:includingLoopback:)``), IPv6 loopback never
    /// (browsers do not pair with it either).
    static func usableAddresses(includingLoopback: Bool) -> [String] {
        var found: [String] = []
        var node = nice_interfaces_get_local_ips(includingLoopback ? 1 : 0)
        let list = node
        while let n = node {
            if let text = n.pointee.data?.assumingMemoryBound(to: gchar.self) {
                let address = String(cString: text)
                if address != "::1", !address.lowercased().hasPrefix("fe80:") { found.append(address) }
                g_free(text)
            }
            node = n.pointee.next
        }
        g_list_free(list)
        return choose(found, includingLoopback: includingLoopback)
    }

    /// Of the interface addresses `found`, those to gather on: every one but loopback, or 127.0.0.1 alone when
    /// loopback is allowed and nothing else is up. Peers on one machine with other interfaces meet on those (as
    /// browsers do); a loopback candidate there pairs with every candidate of a peer on another machine, and those
    /// pairs' checks come before the real ones' and delay the nomination (network-bench, the lab's direct path:
    /// connect to first frame, medians 220-264 ms with it, 151-193 ms without).
    static func choose(_ found: [String], includingLoopback: Bool) -> [String] {
        let real = found.filter { !$0.hasPrefix("127.") }
        return real.isEmpty && includingLoopback ? found.filter { $0 == "127.0.0.1" } : real
    }
}
