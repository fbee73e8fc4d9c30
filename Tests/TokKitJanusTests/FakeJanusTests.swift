import Foundation
import Testing
import TokKitNetworkLab
@testable import TokKitJanus

/// JanusConnection against a fake Janus (a small Python WebSocket server on 127.0.0.1) that sends what a real one
/// never does: frames that are not JSON, replies without what their request needs, no reply at all.
@Suite("Janus connection against a misbehaving server", .serialized) struct FakeJanusTests {
    /// Answers `info` properly; before answering `create`, sends three frames that are not Janus messages, then a
    /// `success` without `data.id`; never answers `hang`.
    static let script = #"""
        import base64, hashlib, json, os, socket, struct, sys
        server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", int(sys.argv[1]))); server.listen(1)
        conn, _ = server.accept()
        request = b""
        while b"\r\n\r\n" not in request: request += conn.recv(4096)
        key = [l.split(b":", 1)[1].strip() for l in request.split(b"\r\n") if l.lower().startswith(b"sec-websocket-key:")][0]
        accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest()).decode()
        conn.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      "Sec-WebSocket-Accept: %s\r\nSec-WebSocket-Protocol: janus-protocol\r\n\r\n" % accept).encode())
        def exact(n):
            data = b""
            while len(data) < n:
                chunk = conn.recv(n - len(data))
                if not chunk: sys.exit(0)
                data += chunk
            return data
        def send(text):
            data = text.encode(); n = len(data)
            header = bytes([0x81, n]) if n < 126 else bytes([0x81, 126]) + struct.pack(">H", n)
            conn.sendall(header + data)
        while True:
            b0, b1 = exact(2)
            n = b1 & 0x7F
            if n == 126: n = struct.unpack(">H", exact(2))[0]
            elif n == 127: n = struct.unpack(">Q", exact(8))[0]
            mask = exact(4); payload = bytes(b ^ mask[i % 4] for i, b in enumerate(exact(n)))
            if b0 & 0x0F == 8: sys.exit(0)
            message = json.loads(payload)
            kind, t = message.get("janus"), message.get("transaction")
            if kind == "info":
                send(json.dumps({"janus": "server_info", "transaction": t, "version": 1102, "version_string": "1.1.2",
                                 "name": "fake", "plugins": {"janus.plugin.videoroom": {}}, "transports": {}}))
            elif kind == "create":
                send("this is not JSON"); send("[1, 2, 3]"); send(json.dumps({"janus": 5, "transaction": t}))
                send(json.dumps({"janus": "success", "transaction": t}))
            elif kind == "hang":
                pass
        """#

    @Test func malformedFramesAndRepliesAreTypedErrorsAndTheConnectionSurvives() async throws {
        let port = try JanusProcess.freePort(on: "127.0.0.1")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", Self.script, String(port)]
        try process.run()
        defer {
            // SIGKILL: the child may inherit a signal mask that blocks SIGTERM (see the deaf-Janus test below).
            if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        }
        // Refused until the server listens: retry, bounded.
        var connected: JanusConnection?
        let deadline = ContinuousClock.now + .seconds(10)
        while connected == nil, ContinuousClock.now < deadline {
            connected = try? await JanusConnection.connect(
                to: "ws://127.0.0.1:\(port)", options: .init(connectTimeout: .seconds(5), requestTimeout: .seconds(5)),
                logger: JanusLab.logger)
            if connected == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let connection = try #require(connected, "the fake server never answered")
        #expect(connection.serverInfo?.name == "fake")

        // A success without data.id: the request fails as malformed; the three bad frames before it are dropped.
        do throws(JanusError) {
            _ = try await connection.createSession()
            Issue.record("a session from a reply without an id")
        } catch {
            guard case .malformedReply = error else { Issue.record("\(error)"); return }
        }
        #expect(connection.malformedMessages == 3)
        // No reply at all: the request ends at its deadline.
        let start = ContinuousClock.now
        await #expect(throws: JanusError.timeout(request: "hang", after: .milliseconds(300))) {
            _ = try await connection.rawRequest("hang", timeout: .milliseconds(300))
        }
        #expect(ContinuousClock.now - start < .seconds(2))
        // From a task cancelled before it asks: fails at once, not at the request's deadline.
        let asked = ContinuousClock.now
        let cancelled = Task { () -> JanusError? in
            withUnsafeCurrentTask { $0?.cancel() }
            do throws(JanusError) {
                _ = try await connection.rawRequest("hang", timeout: .seconds(30))
                return nil
            } catch {
                return error
            }
        }
        #expect(await cancelled.value == .cancelled)
        #expect(ContinuousClock.now - asked < .seconds(2))
        // The connection is still usable.
        #expect(!connection.isClosed)
        _ = try await connection.info()
        await connection.close()
        #expect(connection.isClosed)
    }

    /// Answers `info`, then never reads its socket again (a Janus paused or wedged).
    static let deafScript = #"""
        import base64, hashlib, socket, sys, time
        server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", int(sys.argv[1]))); server.listen(1)
        conn, _ = server.accept()
        request = b""
        while b"\r\n\r\n" not in request: request += conn.recv(4096)
        key = [l.split(b":", 1)[1].strip() for l in request.split(b"\r\n") if l.lower().startswith(b"sec-websocket-key:")][0]
        accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest()).decode()
        conn.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      "Sec-WebSocket-Accept: %s\r\nSec-WebSocket-Protocol: janus-protocol\r\n\r\n" % accept).encode())
        import json, struct
        def exact(n):
            data = b""
            while len(data) < n: data += conn.recv(n - len(data))
            return data
        b0, b1 = exact(2); n = b1 & 0x7F
        if n == 126: n = struct.unpack(">H", exact(2))[0]
        mask = exact(4); payload = bytes(b ^ mask[i % 4] for i, b in enumerate(exact(n)))
        t = json.loads(payload)["transaction"]
        data = json.dumps({"janus": "server_info", "transaction": t, "version": 1102, "version_string": "1.1.2",
                           "name": "deaf", "plugins": {}, "transports": {}}).encode()
        conn.sendall(bytes([0x81, 126]) + struct.pack(">H", len(data)) + data)
        time.sleep(120)
        """#

    /// A Janus that stops reading: requests pile up behind the socket's writer until the queue's bound, then the
    /// connection closes as unreachable (with a reason saying so) and every request fails, instead of the server's
    /// memory growing with each request (without the bound the connection stays open and queues forever).
    @Test func aJanusThatStopsReadingBecomesUnreachableAtTheQueueBound() async throws {
        let port = try JanusProcess.freePort(on: "127.0.0.1")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", Self.deafScript, String(port)]
        try process.run()
        defer {
            // SIGKILL: the child may inherit a signal mask that blocks SIGTERM (see the deaf-Janus test below).
            if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        }
        var connected: JanusConnection?
        let deadline = ContinuousClock.now + .seconds(10)
        while connected == nil, ContinuousClock.now < deadline {
            connected = try? await JanusConnection.connect(
                to: "ws://127.0.0.1:\(port)",
                options: .init(connectTimeout: .seconds(5), requestTimeout: .seconds(60), maxQueuedBytes: 1 << 20),
                logger: JanusLab.logger)
            if connected == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let connection = try #require(connected, "the fake server never answered")
        #expect(connection.serverInfo?.name == "deaf")

        // 32 MiB of requests, more than the kernel's socket buffers and the 1 MiB bound hold.
        let padding = JanusJSON.string(String(repeating: "x", count: 256 << 10))
        let requests = (0..<128).map { _ in
            Task { () -> JanusError? in
                do throws(JanusError) {
                    _ = try await connection.rawRequest("pad", ["padding": padding])
                    return nil
                } catch {
                    return error
                }
            }
        }
        let closed = await pollUntil(.seconds(20)) { connection.isClosed }
        #expect(closed, "still open with requests unsent")
        guard case .unreachable(_, let reason)? = connection.closeReason else {
            Issue.record("closed for \(String(describing: connection.closeReason))")
            for request in requests { request.cancel() }
            return
        }
        #expect(reason.contains("stopped reading"), "\(reason)")
        for request in requests {
            let error = await request.value
            #expect(error != nil, "a request succeeded at a Janus that does not read")
        }
        await connection.close()
    }

    /// Answers `info` and `create`, and counts (on standard output) but never answers `keepalive`: a Janus paused
    /// after the session was made (a paused Janus sends no `timeout` event either).
    static let muteScript = #"""
        import base64, hashlib, json, socket, struct, sys
        server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", int(sys.argv[1]))); server.listen(4)
        while True:
            conn, _ = server.accept()
            request = b""
            while b"\r\n\r\n" not in request: request += conn.recv(4096)
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
                data = json.dumps(obj).encode(); n = len(data)
                header = bytes([0x81, n]) if n < 126 else bytes([0x81, 126]) + struct.pack(">H", n)
                conn.sendall(header + data)
            try:
                while True:
                    b0, b1 = exact(2)
                    n = b1 & 0x7F
                    if n == 126: n = struct.unpack(">H", exact(2))[0]
                    elif n == 127: n = struct.unpack(">Q", exact(8))[0]
                    mask = exact(4); payload = bytes(b ^ mask[i % 4] for i, b in enumerate(exact(n)))
                    if b0 & 0x0F == 8: break
                    m = json.loads(payload); kind, t = m.get("janus"), m.get("transaction")
                    if kind == "info":
                        send({"janus": "server_info", "transaction": t, "version": 1102, "version_string": "1.1.2",
                              "name": "mute", "plugins": {}, "transports": {}})
                    elif kind == "create":
                        send({"janus": "success", "transaction": t, "data": {"id": 4242}})
                    elif kind == "keepalive":
                        sys.stdout.write("keepalive\n"); sys.stdout.flush()
            except (EOFError, OSError): pass
            conn.close()
        """#

    /// A Janus that stops answering keepalives (paused: no reply, no `timeout` event) ends the session on the
    /// client side after ``JanusConnection/maxKeepaliveFailures`` failures in a row: ``JanusSession/ended()``
    /// returns the keepalive's timeout, after exactly that many keepalives, instead of never.
    @Test func keepalivesFailingInARowEndTheSession() async throws {
        let port = try JanusProcess.freePort(on: "127.0.0.1")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", Self.muteScript, String(port)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let lines = LineCollector(output, name: "fake-janus")
        defer { kill(process.processIdentifier, SIGKILL) }  // SIGTERM may be blocked in the child's signal mask
        var connected: JanusConnection?
        let deadline = ContinuousClock.now + .seconds(10)
        while connected == nil, ContinuousClock.now < deadline {
            connected = try? await JanusConnection.connect(
                to: "ws://127.0.0.1:\(port)",
                options: .init(connectTimeout: .seconds(5), requestTimeout: .milliseconds(200)), logger: JanusLab.logger)
            if connected == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let connection = try #require(connected, "the fake server never answered")
        let session = try await connection.createSession(keepaliveInterval: .milliseconds(100))
        let ended = Task { await session.ended() }
        let gone = await pollUntil(.seconds(20)) { !connection.isLive(session: session.id) }
        guard gone else {
            Issue.record("the session still counts as live with its keepalives unanswered")
            await connection.close()  // ends the session, so that `ended` returns
            _ = await ended.value
            return
        }
        let why = await ended.value
        guard case .timeout(let request, _) = why else {
            Issue.record("ended for \(why)")
            await connection.close()
            return
        }
        #expect(request == "keepalive")
        // Exactly that many reached the fake (each is counted there before its deadline passes here), none after.
        let counted = await pollUntil(.seconds(5)) { lines.lines.count >= JanusConnection.maxKeepaliveFailures }
        #expect(counted)
        try await Task.sleep(for: .milliseconds(500))  // five more intervals: a keepalive still running would show
        #expect(lines.lines.count == JanusConnection.maxKeepaliveFailures)
        await connection.close()
    }
}
