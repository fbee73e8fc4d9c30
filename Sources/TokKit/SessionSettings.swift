import Logging

/// Tunables of a ``Session``; the defaults suit interactive use. A plain value.
public struct SessionSettings: Sendable {
    /// How long the WebSocket handshake plus the server's answer to `connect` may take (then 1021).
    public var connectTimeout: Duration = .seconds(10)
    /// How to retry after the WebSocket drops.
    public var reconnectPolicy: ReconnectPolicy = .standard
    /// Most events each ``Session/events`` stream buffers for a consumer that falls behind (newest kept).
    public var eventBufferLimit: Int = 4096
    /// Most messages waiting to be written to the socket; beyond it sends fail (signals with 1550).
    public var outgoingLimit: Int = 4096
    /// STUN/TURN servers and the transport policy of the session's media connections.
    public var ice = SessionICEConfiguration()
    /// Where the session logs (the WebSocket client logs here too).
    public var logger = Logger(label: "TokKit.Session")
    /// Extra header fields sent with the signaling WebSocket's upgrade request: a server's own archive recorder
    /// sends its credential here; empty by default. Names must be valid HTTP field names (others are skipped).
    /// Recorder SPI (`@_spi(Recording) import TokKit`), not app API: nothing checks the fields against the
    /// handshake's own (`Host`, `Upgrade`, `Connection`, `Sec-WebSocket-*`).
    @_spi(Recording) public var signalingHeaders: [String: String] = [:]

    /// The defaults: 10 s to connect, ``ReconnectPolicy/standard``, 4096 events buffered per stream and messages
    /// queued for the socket, the session server's ICE servers, a `TokKit.Session` logger.
    public init() {}
}
