import Foundation
import Logging
import Synchronization
import TokKit
import TokKitICE
import TokKitServer
import TokKitNetworkLab
@testable import TokKitJanus
import TokKitProtocol

/// A fake Janus for tests of the server's routed side that need Janus to misbehave on purpose, faster and more
/// precisely than a real one can: a small Python WebSocket server on 127.0.0.1 (a thread per connection) speaking
/// enough of the Janus API and the VideoRoom plugin for ``RoutedMedia``: `info`, `create`, `attach`, `detach`,
/// `destroy`, `keepalive`, `trickle`, and plugin messages `create`/`destroy` (rooms), `join` (publisher and
/// subscriber), `configure` with an offer, `start`, `moderate`.
///
/// `configure` with an offer is answered according to the offer: an SDP containing `stall` is never answered, one
/// containing `refuse` gets a VideoRoom error (433), any other gets an answer followed by `webrtcup` (the
/// publisher's PeerConnection "up" at once). With ``Mode/refuseEveryOffer`` every
/// offer is refused. An answered offer containing `forget-room` makes the fake forget the publisher's room
/// afterwards, silently (no event to anyone; ``seen`` gets `forgot room`): a `join` in a room the fake does not
/// know (never created, destroyed or forgotten) gets "No such room" (426), as a real Janus answers.
///
/// An offer containing `m=audio` is answered with an audio section of `mid` 0 (so that moderation can name it).
///
/// ``seen`` lists the VideoRoom requests the fake received, in order (`join publisher`, `join subscriber`,
/// `configure`, `start`, `create`, `destroy`, `moderate mute 0`), so that a test can wait until Janus got what it
/// expects; a subscriber's `configure` of its streams (no offer) adds one line per stream, its fields sorted
/// (`configure stream mid=1 substream=2 temporal=0`), and is followed by Janus's event that it forwards that
/// `substream` (as Janus does once the layer's next key frame came). Janus's offer to a subscriber has an audio (`0`) and a
/// video (`1`) stream.
final class FakeJanus: Sendable {
    enum Mode: String {
        case byOffer = "by-offer"
        case refuseEveryOffer = "refuse"
        /// As ``byOffer``, except that a subscriber is switched to a simulcast layer only the third time in a row
        /// it is asked for (as if the publisher ignored the first two key frame requests).
        case lateLayerSwitch = "late-layer-switch"
        /// As ``byOffer``, except that a subscriber is never switched to another simulcast layer.
        case noLayerSwitch = "no-layer-switch"
    }

    static let script = #"""
        import base64, hashlib, json, socket, struct, sys, threading, itertools
        mode = sys.argv[2]
        ids = itertools.count(1000)
        asks = {}  # subscriber handle -> (the substream last asked for, how many times in a row)
        lock = threading.Lock()
        rooms, room_of = set(), {}
        def next_id():
            with lock: return next(ids)
        def seen(what):
            with lock:
                sys.stdout.write(what + "\n"); sys.stdout.flush()
        def serve(conn):
            request = b""
            while b"\r\n\r\n" not in request:
                chunk = conn.recv(4096)
                if not chunk: return
                request += chunk
            key = [l.split(b":", 1)[1].strip() for l in request.split(b"\r\n") if l.lower().startswith(b"sec-websocket-key:")][0]
            accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest()).decode()
            conn.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          "Sec-WebSocket-Accept: %s\r\nSec-WebSocket-Protocol: janus-protocol\r\n\r\n" % accept).encode())
            def exact(n):
                data = b""
                while len(data) < n:
                    chunk = conn.recv(n - len(data))
                    if not chunk: raise EOFError()
                    data += chunk
                return data
            def send(obj):
                data = json.dumps({k: v for k, v in obj.items() if v is not None}).encode(); n = len(data)
                if n < 126: header = bytes([0x81, n])
                elif n < 65536: header = bytes([0x81, 126]) + struct.pack(">H", n)
                else: header = bytes([0x81, 127]) + struct.pack(">Q", n)
                conn.sendall(header + data)
            while True:
                b0, b1 = exact(2)
                n = b1 & 0x7F
                if n == 126: n = struct.unpack(">H", exact(2))[0]
                elif n == 127: n = struct.unpack(">Q", exact(8))[0]
                mask = exact(4); payload = bytes(b ^ mask[i % 4] for i, b in enumerate(exact(n)))
                if b0 & 0x0F == 8: return
                m = json.loads(payload)
                kind, t = m.get("janus"), m.get("transaction")
                sid, hid = m.get("session_id"), m.get("handle_id")
                if kind == "info":
                    send({"janus": "server_info", "transaction": t, "version": 1102, "version_string": "1.1.2",
                          "name": "fake", "plugins": {"janus.plugin.videoroom": {}}, "transports": {}})
                elif kind in ("create", "attach"):
                    send({"janus": "success", "transaction": t, "session_id": sid, "data": {"id": next_id()}})
                elif kind in ("detach", "destroy", "hangup"):
                    send({"janus": "success", "transaction": t, "session_id": sid})
                elif kind in ("keepalive", "trickle"):
                    send({"janus": "ack", "transaction": t, "session_id": sid})
                elif kind == "message":
                    body, jsep = m.get("body", {}), m.get("jsep")
                    request = body.get("request")
                    mute = body.get("mute")
                    seen(request + (" " + body.get("ptype") if body.get("ptype") else "")
                         + (" " + ("mute" if mute else "unmute") + " " + str(body.get("mid")) if request == "moderate" else ""))
                    def reply(data, answer=None):
                        out = {"janus": "event" if request not in ("create", "destroy", "moderate") else "success",
                               "transaction": t, "session_id": sid, "sender": hid,
                               "plugindata": {"plugin": "janus.plugin.videoroom", "data": data}}
                        if answer is not None: out["jsep"] = answer
                        send(out)
                    if request == "create":
                        room = next_id()
                        with lock: rooms.add(room)
                        reply({"videoroom": "created", "room": room, "permanent": False})
                    elif request == "destroy":
                        with lock: rooms.discard(body.get("room"))
                        reply({"videoroom": "destroyed", "room": body.get("room")})
                    elif request == "join" and body.get("room") not in rooms:
                        reply({"videoroom": "event", "error_code": 426, "error": "No such room (%s)" % body.get("room")})
                    elif request == "join" and body.get("ptype") == "publisher":
                        with lock: room_of[hid] = body.get("room")
                        reply({"videoroom": "joined", "room": body.get("room"), "id": next_id(), "publishers": []})
                    elif request == "join":
                        reply({"videoroom": "attached", "room": body.get("room"),
                               "streams": [{"mindex": 0, "mid": "0", "type": "audio"},
                                           {"mindex": 1, "mid": "1", "type": "video"}]},
                              {"type": "offer", "sdp": "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=fake\r\nt=0 0\r\n"})
                    elif request == "configure" and jsep is not None:
                        sdp = jsep.get("sdp", "")
                        if "stall" in sdp: continue
                        if mode == "refuse" or "refuse" in sdp:
                            reply({"videoroom": "event", "error_code": 433, "error": "fake: offer refused"})
                        else:
                            answer = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=fake\r\nt=0 0\r\n"
                            if "m=audio" in sdp: answer += "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\n"
                            reply({"videoroom": "event", "configured": "ok"}, {"type": "answer", "sdp": answer})
                            send({"janus": "webrtcup", "session_id": sid, "sender": hid})
                            if "forget-room" in sdp:
                                with lock: rooms.discard(room_of.get(hid))
                                seen("forgot room")
                    elif request == "configure" and "streams" in body:
                        for stream in body["streams"]:
                            seen("configure stream " + " ".join("%s=%s" % (k, stream[k]) for k in sorted(stream)))
                        reply({"videoroom": "event", "configured": "ok"})
                        for stream in body["streams"]:
                            if "substream" not in stream: continue
                            asked = stream["substream"]
                            with lock:
                                last, count = asks.get(hid, (None, 0))
                                count = count + 1 if last == asked else 1
                                asks[hid] = (asked, count)
                            if mode == "late-layer-switch" and count < 3 or mode == "no-layer-switch": continue
                            send({"janus": "event", "session_id": sid, "sender": hid,
                                  "plugindata": {"plugin": "janus.plugin.videoroom",
                                                 "data": {"videoroom": "event", "room": 1, "mid": stream.get("mid"),
                                                          "substream": asked}}})
                    elif request == "start": reply({"videoroom": "event", "started": "ok"})
                    elif request == "moderate": reply({"videoroom": "success"})
                    else: reply({"videoroom": "event", "error_code": 423, "error": "fake: unknown request"})
                else:
                    send({"janus": "error", "transaction": t, "error": {"code": 457, "reason": "fake: unknown"}})
        def run(conn):
            try: serve(conn)
            except (EOFError, OSError): pass
            finally: conn.close()
        server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", int(sys.argv[1]))); server.listen(8)
        while True:
            conn, _ = server.accept()
            threading.Thread(target=run, args=(conn,), daemon=True).start()
        """#

    let url: String
    /// The Python process (killed by ``stop()`` or when the fake is dropped).
    private let pid: Int32
    private let stopped = Mutex(false)
    private let requests: LineCollector

    /// The VideoRoom requests received so far, in order (e.g. `join subscriber`, `start`).
    var seen: [String] { requests.lines }

    private init(url: String, pid: Int32, requests: LineCollector) {
        self.url = url
        self.pid = pid
        self.requests = requests
    }

    /// Starts the fake and returns once it accepts a Janus connection (bounded: 10 s).
    static func start(_ mode: Mode = .byOffer) async throws -> FakeJanus {
        let port = try JanusProcess.freePort(on: "127.0.0.1")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, String(port), mode.rawValue]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let requests = LineCollector(output, name: "fake-janus")
        let fake = FakeJanus(url: "ws://127.0.0.1:\(port)", pid: process.processIdentifier, requests: requests)
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let probe = try? await JanusConnection.connect(to: fake.url) {
                await probe.close()
                return fake
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        fake.stop()
        throw FakeJanusError(description: "the fake Janus never answered at \(fake.url)")
    }

    func stop() {
        let wasStopped = stopped.withLock { done in
            let was = done
            done = true
            return was
        }
        guard !wasStopped else { return }
        kill(pid, SIGKILL)
    }

    deinit { stop() }

    struct FakeJanusError: Error, CustomStringConvertible {
        let description: String
    }
}

/// A session server on 127.0.0.1 whose routed sessions go to a ``FakeJanus``, with one routed session, for tests of
/// real clients against a Janus that misbehaves on purpose. Stop it with `server.stop()`.
struct FakeJanusServer {
    let server: TokKitServer
    let port: Int
    let sessionID: String

    /// `staticDirectory`: the server serves its files (and tokkit.js) to browsers.
    static func start(_ fake: FakeJanus, requestTimeoutMs: Int, logger: Logger,
                      staticDirectory: String? = nil) async throws -> FakeJanusServer {
        var configuration = ServerConfiguration(apiKey: RoutedLab.apiKey, apiSecret: RoutedLab.apiSecret)
        configuration.janus = [RoutedMediaConfiguration(url: fake.url, requestTimeoutMs: requestTimeoutMs)]
        configuration.staticDirectory = staticDirectory
        let server = try TokKitServer(configuration: configuration, logger: logger)
        let port = try await server.start()
        let sessionID = try await server.createSession(mediaMode: .routed).sessionID
        return FakeJanusServer(server: server, port: port, sessionID: sessionID)
    }

    /// Runs `body` with a new ``FakeJanus`` (in `mode`) and a server using it; stops both whatever happens (a
    /// failing `#require` or request included), as ``RoutedLab/run(sessionTimeout:configure:_:)`` does for Janus.
    static func run<T>(_ mode: FakeJanus.Mode = .byOffer, requestTimeoutMs: Int, logger: Logger,
                       _ body: (FakeJanus, FakeJanusServer) async throws -> T) async throws -> T {
        let fake = try await FakeJanus.start(mode)
        defer { fake.stop() }
        let routed = try await start(fake, requestTimeoutMs: requestTimeoutMs, logger: logger)
        do {
            let result = try await body(fake, routed)
            await routed.server.stop()
            return result
        } catch {
            print("fake Janus saw: \(fake.seen)")
            await routed.server.stop()
            throw error
        }
    }

    /// Runs `body`, then stops the server whatever happens (for a test that made it with
    /// ``start(_:requestTimeoutMs:logger:staticDirectory:)``).
    func stopping<T>(_ body: () async throws -> T) async throws -> T {
        do {
            let result = try await body()
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// A client connected to the session (its peers on loopback).
    func connect() async throws -> Session {
        var settings = SessionSettings()
        settings.logger.logLevel = .critical
        let session = Session(apiKey: RoutedLab.apiKey, sessionID: SessionID(sessionID),
                              serverURL: URL(string: "http://127.0.0.1:\(port)")!, settings: settings)
        session.mediaNegotiator = WebRTCNegotiator(ice: .loopback)
        let token = try await server.issueToken(sessionID: sessionID, role: .publisher, connectionData: "").token
        try await session.connect(token: token)
        return session
    }
}
