/// A plugin handle in a ``JanusSession``: plugin messages (with an optional JSEP offer or answer), trickled ICE
/// candidates, and the events Janus sends about it.
///
/// ``events`` carries, in order, the plugin's events that are not replies to a request (VideoRoom: new
/// publishers, unpublished and leaving feeds, renegotiation offers) and the core's WebRTC events (`webrtcup`,
/// `media`, `slowlink`, `hangup`); it ends after ``JanusEvent/detached``, or when the session or the connection
/// ends. Only the newest ``JanusConnection/eventBufferSize`` events are kept if nobody reads them.
///
/// Threading: any method from any task.
public final class JanusHandle: Sendable {
    /// Janus's handle id (`sender` in its events).
    public let id: UInt64
    /// The session it lives in.
    public let session: JanusSession
    /// The plugin package it is attached to.
    public let plugin: String
    /// Events about this handle (see the type's documentation).
    public let events: AsyncStream<JanusEvent>

    init(id: UInt64, session: JanusSession, plugin: String, events: AsyncStream<JanusEvent>) {
        self.id = id
        self.session = session
        self.plugin = plugin
        self.events = events
    }

    private var connection: JanusConnection { session.connection }

    /// Whether the handle is still attached (and its session and connection live).
    public var isAttached: Bool { connection.isLive(handle: id) }

    /// Sends a plugin message (`body`, with `jsep` if negotiating) and returns the plugin's reply: its direct
    /// `success` for synchronous requests, or the `event` carrying this request's transaction for asynchronous
    /// ones (after Janus's `ack`), both within `timeout`. A plugin `error_code` throws
    /// ``JanusError/plugin(code:reason:)``.
    public func message(_ body: JanusJSON, jsep: JanusJSEP? = nil, timeout: Duration? = nil)
        async throws(JanusError) -> JanusPluginReply {
        var fields: [String: JanusJSON] = ["body": body]
        if let jsep { fields["jsep"] = jsep.json }
        let reply = try await connection.send("message", fields, session: session.id, handle: id,
                                              expect: .pluginReply, timeout: timeout)
        return try JanusPluginReply(reply)
    }

    /// Trickles one local ICE candidate (`candidate:…` as in SDP, without `a=`) of the m-line `sdpMid` /
    /// `sdpMLineIndex` to Janus.
    public func trickle(candidate: String, sdpMid: String?, sdpMLineIndex: Int?, timeout: Duration? = nil)
        async throws(JanusError) {
        var c: [String: JanusJSON] = ["candidate": .string(Self.strip(candidate))]
        if let sdpMid { c["sdpMid"] = .string(sdpMid) }
        if let sdpMLineIndex { c["sdpMLineIndex"] = .integer(Int64(sdpMLineIndex)) }
        _ = try await connection.send("trickle", ["candidate": .object(c)], session: session.id, handle: id,
                                      expect: .ack, timeout: timeout)
    }

    /// Tells Janus that no more local candidates will come (`{"completed": true}`).
    public func trickleCompleted(timeout: Duration? = nil) async throws(JanusError) {
        _ = try await connection.send("trickle", ["candidate": ["completed": true]], session: session.id,
                                      handle: id, expect: .ack, timeout: timeout)
    }

    /// Tears down the handle's PeerConnection (the handle stays attached).
    public func hangup(timeout: Duration? = nil) async throws(JanusError) {
        _ = try await connection.send("hangup", session: session.id, handle: id, expect: .success, timeout: timeout)
    }

    /// Detaches the handle from its plugin (VideoRoom: a publisher leaves the room, a subscription ends); its
    /// event stream gets ``JanusEvent/detached`` and ends. Succeeds if it is already detached.
    public func detach(timeout: Duration? = nil) async throws(JanusError) {
        defer { connection.handleEnded(id) }
        do throws(JanusError) {
            _ = try await connection.send("detach", session: session.id, handle: id, expect: .success,
                                          timeout: timeout)
        } catch {
            switch error {
            case .handleDetached: return
            case .janus(let code, _) where code == JanusErrorCode.handleNotFound: return
            default: throw error
            }
        }
    }

    static func strip(_ candidate: String) -> String {
        candidate.hasPrefix("a=") ? String(candidate.dropFirst(2)) : candidate
    }
}
