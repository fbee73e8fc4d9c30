import Prometheus
import TokKitProtocol

/// The server's Prometheus metrics (swift-prometheus), served at `GET /metrics` to admin callers
/// (Docs/Protocol.md 5.6, Docs/Server.md).
///
/// Counters are incremented where things happen (the ``SessionRegistry``, the REST routes, the connection layer);
/// gauges of what the server holds now (sessions, connections by state, streams, ...) are read from
/// ``RegistryStats`` when the metrics are scraped, so they cannot drift. Every label value comes from a closed set
/// (protocol error codes, reasons, transports), never from a client's input, so the number of series is bounded.
///
/// One instance per server, its own collector registry (nothing global is bootstrapped, so several servers in one
/// process keep their figures apart). Thread-safe (`Sendable`): swift-prometheus' metrics are atomic and its
/// registry locks.
final class ServerMetrics: Sendable {
    /// Where a refused request came in.
    enum Transport: String, Sendable {
        /// A signaling WebSocket message answered with `error`.
        case websocket
        /// A REST call answered with an error status.
        case rest
        /// A connection the connection layer refused (caps) or answered 400 before any route (malformed request).
        case http
    }

    let registry = PrometheusCollectorRegistry()

    private let sessionsCreated: Counter
    private let sessionsExpired: Counter
    private let connects: Counter
    private let resumes: Counter
    private let streamsPublished: Counter
    private let subscriptionsCreated: Counter
    private let signalsWebSocket: Counter
    private let signalsREST: Counter
    private let signalDeliveries: Counter
    private let outboxOverflows: Counter
    private let outboxDroppedMessages: Counter
    private let httpTimeouts: Counter

    private let sessions: Gauge
    private let connectionsConnecting: Gauge
    private let connectionsConnected: Gauge
    private let connectionsAwaitingResume: Gauge
    private let streams: Gauge
    private let subscriptions: Gauge
    private let signalingSockets: Gauge
    private let tcpConnections: Gauge

    /// A series name `tokkit_<metric>[_<unit>]` with its help text.
    private static func series(_ metric: String, unit: String = "", _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "tokkit", metricName: metric, unitName: unit, helpText: help)
    }

    private static var refused: MetricNameDescriptor {
        series("refused_requests", unit: "total", "Requests refused, by protocol error code and transport")
    }
    private static var destroyed: MetricNameDescriptor {
        series("connections_destroyed", unit: "total", "Connections that left their session, by reason")
    }
    private static var signals: MetricNameDescriptor {
        series("signals", unit: "total", "Signals accepted for delivery, by transport")
    }
    private static var connections: MetricNameDescriptor {
        series("connections", "Connections held, by state")
    }

    init() {
        sessionsCreated = registry.makeCounter(
            descriptor: Self.series("sessions_created", unit: "total", "Sessions created (REST, quick start, in process)"))
        sessionsExpired = registry.makeCounter(
            descriptor: Self.series("sessions_expired", unit: "total", "Sessions forgotten after staying empty"))
        connects = registry.makeCounter(
            descriptor: Self.series("connections", unit: "total", "Connections that joined a session (connect accepted)"))
        resumes = registry.makeCounter(
            descriptor: Self.series("connections_resumed", unit: "total", "Connections resumed on a new socket"))
        streamsPublished = registry.makeCounter(
            descriptor: Self.series("streams_published", unit: "total", "Streams published"))
        subscriptionsCreated = registry.makeCounter(
            descriptor: Self.series("subscriptions", unit: "total", "Subscriptions created"))
        signalsWebSocket = registry.makeCounter(
            descriptor: Self.signals, labels: [("via", Transport.websocket.rawValue)])
        signalsREST = registry.makeCounter(descriptor: Self.signals, labels: [("via", Transport.rest.rawValue)])
        signalDeliveries = registry.makeCounter(
            descriptor: Self.series(
                "signal_deliveries", unit: "total", "Signal messages queued to recipients (a broadcast counts each)"))
        outboxOverflows = registry.makeCounter(
            descriptor: Self.series(
                "outbox_overflows", unit: "total", "Sockets dropped because their outbox overflowed (the client did not read)"))
        outboxDroppedMessages = registry.makeCounter(
            descriptor: Self.series(
                "outbox_dropped_messages", unit: "total",
                "Messages discarded by overflowing outboxes (those queued and the one that did not fit)"))
        httpTimeouts = registry.makeCounter(
            descriptor: Self.series("http_timeouts", unit: "total", "HTTP connections closed for missing a request deadline"))

        sessions = registry.makeGauge(descriptor: Self.series("sessions", "Sessions held"))
        connectionsConnecting = registry.makeGauge(descriptor: Self.connections, labels: [("state", "connecting")])
        connectionsConnected = registry.makeGauge(descriptor: Self.connections, labels: [("state", "connected")])
        connectionsAwaitingResume = registry.makeGauge(
            descriptor: Self.connections, labels: [("state", "awaiting_resume")])
        streams = registry.makeGauge(descriptor: Self.series("streams", "Streams published now"))
        subscriptions = registry.makeGauge(descriptor: Self.series("subscriptions", "Subscriptions now"))
        signalingSockets = registry.makeGauge(descriptor: Self.series("signaling_sockets", "Signaling WebSockets open"))
        tcpConnections = registry.makeGauge(
            descriptor: Self.series("tcp_connections", "TCP connections open, HTTP and WebSocket"))

        // Series that exist from the start (at 0), so that a rate over them is defined before the first event.
        for reason in DisconnectReason.allCases { _ = destroyedCounter(reason) }
    }

    // MARK: Events

    func sessionCreated() { sessionsCreated.increment() }
    func sessionsExpired(_ count: Int) { sessionsExpired.increment(by: Int64(count)) }
    func connected() { connects.increment() }
    func resumed() { resumes.increment() }
    func connectionDestroyed(_ reason: DisconnectReason) { destroyedCounter(reason).increment() }
    func streamPublished() { streamsPublished.increment() }
    func subscribed() { subscriptionsCreated.increment() }
    func httpTimedOut() { httpTimeouts.increment() }

    /// A signal accepted (`via` websocket or rest) and queued to `deliveries` recipients.
    func signal(via transport: Transport, deliveries: Int) {
        (transport == .rest ? signalsREST : signalsWebSocket).increment()
        signalDeliveries.increment(by: Int64(deliveries))
    }

    /// A request refused with `code`.
    func refused(_ code: ErrorCode, via transport: Transport) {
        registry.makeCounter(
            descriptor: Self.refused, labels: [("code", String(code.rawValue)), ("via", transport.rawValue)]
        ).increment()
    }

    /// An outbox overflowed, discarding `droppedMessages`.
    func outboxOverflowed(droppedMessages: Int) {
        outboxOverflows.increment()
        outboxDroppedMessages.increment(by: Int64(droppedMessages))
    }

    private func destroyedCounter(_ reason: DisconnectReason) -> Counter {
        registry.makeCounter(descriptor: Self.destroyed, labels: [("reason", reason.rawValue)])
    }

    // MARK: Exposition

    /// The text exposition format (version 0.0.4), the gauges set from `stats` first.
    func exposition(_ stats: RegistryStats) -> [UInt8] {
        sessions.set(Int64(stats.sessions))
        connectionsConnecting.set(Int64(stats.connecting))
        connectionsConnected.set(Int64(stats.connected))
        connectionsAwaitingResume.set(Int64(stats.awaitingResume))
        streams.set(Int64(stats.streams))
        subscriptions.set(Int64(stats.subscriptions))
        signalingSockets.set(Int64(stats.socketTasks))
        tcpConnections.set(Int64(stats.tcpConnections))
        return registry.emitToBuffer()
    }

    /// `Content-Type` of ``exposition(_:)``.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"
}
