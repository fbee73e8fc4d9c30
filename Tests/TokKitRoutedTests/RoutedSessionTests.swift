import Foundation
import Logging
import Testing
import TokKit
import TokKitICE
import TokKitJanus
import TokKitNetworkLab
import TokKitProtocol
import TokKitServer
import TokKitTesting

/// Routed sessions end to end (issue 15): a real `TokKitServer` in the test process drives a real Janus 1.1.2 in a
/// network-lab host; Swift clients (their peers gathering on the test process's lab address) publish once to Janus
/// and subscribe by answering Janus's offer. Run inside `unshare -n`, as scripts/test does.
@Suite("Routed sessions through Janus", .serialized) struct RoutedSessionTests {
    /// One publisher, two subscribers: both decode ≥ 90 % of the frames encoded over 4 s, the publisher uploads one
    /// stream (one peer connection, bytes within 1.2 × what it encoded), and unsubscribe, unpublish and the session's
    /// end take the Janus handles and the room down.
    @Test func onePublisherTwoSubscribersThroughJanus() async throws {
        try await RoutedLab.run { lab, janus, server in
            let sessionID = try await server.createSession(mediaMode: .routed).sessionID
            let alice = try await RoutedLab.connect(server, sessionID, lab)
            // Camera-like content that keeps the encoder at about 1 Mbps: the upload figures mean something.
            let capturer = SequenceCapturer(.textured, framesPerSecond: 30)
            let publisher = Publisher(name: "textured", videoCapture: capturer)
            try await alice.publish(publisher)
            let streamID = try #require(publisher.stream?.streamID)

            let subscribers = try await RoutedLab.subscribers(2, to: streamID, server, sessionID, lab)
            let flowing = await eventually(timeout: .seconds(20)) {
                subscribers.allSatisfy { $0.2.frames >= 10 }
            }
            #expect(flowing, "frames decoded: \(subscribers.map { $0.2.frames }); janus:\n\(janus.logTail(20))")
            guard flowing else { return }

            // Over 4 s: frames encoded once, decoded by both.
            let encoded0 = publisher.statistics.video.framesEncoded
            let decoded0 = subscribers.map { $0.2.frames }
            let bytesEncoded0 = publisher.statistics.video.bytesEncoded
            let bytesSent0 = RoutedLab.videoBytesSent(publisher)
            try await Task.sleep(for: .seconds(4))
            let encoded = publisher.statistics.video.framesEncoded - encoded0
            let decoded = zip(subscribers, decoded0).map { $0.0.2.frames - $0.1 }
            let bytesEncoded = publisher.statistics.video.bytesEncoded - bytesEncoded0
            let bytesSent = RoutedLab.videoBytesSent(publisher) - bytesSent0
            print("routed: encoded \(encoded) frames (\(bytesEncoded) B), decoded \(decoded), sent \(bytesSent) B")
            #expect(encoded >= 30, "the publisher encodes (\(encoded) frames in 4 s)")
            for count in decoded {
                #expect(Double(count) >= 0.9 * Double(encoded), "decoded \(count) of \(encoded)")
            }
            #expect(publisher.statistics.subscriptions.count == 1, "one upload, to the media router")
            #expect(Double(bytesSent) <= 1.2 * Double(bytesEncoded) && bytesSent > 0,
                    "sent \(bytesSent) B for \(bytesEncoded) B encoded (relayed to two would be about 2x)")

            // The server holds one room, one publisher handle and two subscriber handles at Janus.
            let status = try #require(await server.routedMediaStatus())
            let room = try #require(status.rooms[sessionID])
            #expect(status.publishers == 1 && status.subscribers == 2, "\(status)")
            let watcher = try await RoutedLab.admin(janus)
            #expect(try await watcher.admin.participants(in: room).filter(\.publisher).count == 1)

            // Unsubscribe: that subscriber's handle goes.
            try await subscribers[0].0.unsubscribe(subscribers[0].1)
            #expect(await eventually { await server.routedMediaStatus()?.subscribers == 1 })
            // Unpublish: the other subscriber hears streamDestroyed, the publisher and subscriber handles go.
            try await alice.unpublish(publisher)
            #expect(await eventually { subscribers[1].0.streams[streamID] == nil })
            #expect(await eventually {
                let s = await server.routedMediaStatus()
                return s?.publishers == 0 && s?.subscribers == 0
            })
            // That was the session's last stream: its room is destroyed now, not when the session expires.
            #expect(await eventually(timeout: .seconds(10)) { await server.routedMediaStatus()?.rooms.isEmpty == true })
            #expect(try await watcher.admin.exists(room) == false, "the session's room is gone from Janus")
            await alice.disconnect()
            for (bob, _, _) in subscribers { await bob.disconnect() }
            await watcher.close()
        }
    }

    /// Janus ending a stream's media path mid-session (its room destroyed behind the server's back) reaches the
    /// clients as typed errors (1570); the server keeps no handle for them, and the next publish gets a new room
    /// with media through it.
    @Test func janusFaultsReachTheClientsAsTypedErrors() async throws {
        try await RoutedLab.run { lab, janus, server in
            let sessionID = try await server.createSession(mediaMode: .routed).sessionID
            let alice = try await RoutedLab.connect(server, sessionID, lab)
            let publisher = Publisher(name: "pattern", videoCapture: PatternCapturer(width: 160, height: 120))
            let publisherFailure = RoutedLab.firstFailure(publisher.events)
            try await alice.publish(publisher)
            let streamID = try #require(publisher.stream?.streamID)
            let bob = try await RoutedLab.connect(server, sessionID, lab)
            #expect(await eventually { bob.streams[streamID] != nil })
            let renderer = CountingRenderer()
            let subscriber = Subscriber(stream: try #require(bob.streams[streamID]), videoRender: renderer)
            let subscriberFailure = RoutedLab.firstFailure(subscriber.events)
            try await bob.subscribe(subscriber)
            #expect(await eventually(timeout: .seconds(20)) { renderer.frames > 0 })

            // Mid-session: the room goes; the publisher and the subscriber hear 1570, the server forgets both.
            let room = try #require(await server.routedMediaStatus()?.rooms[sessionID])
            let watcher = try await RoutedLab.admin(janus)
            try await watcher.admin.destroyRoom(room)
            let lost = try #require(try await RoutedLab.within(.seconds(10), "publisher failure") { await publisherFailure.value })
            #expect(lost.code == ErrorCode.mediaRouterFailed.rawValue, "\(lost)")
            let dropped = try #require(try await RoutedLab.within(.seconds(10), "subscriber failure") { await subscriberFailure.value })
            #expect(dropped.code == ErrorCode.mediaRouterFailed.rawValue, "\(dropped)")
            #expect(await eventually {
                let s = await server.routedMediaStatus()
                return s?.publishers == 0 && s?.subscribers == 0
            }, "no handle kept")
            // The stream that lost its upstream is unpublished by the server, for everyone (Protocol.md 6.7).
            #expect(await eventually { bob.streams[streamID] == nil && alice.streams[streamID] == nil })

            // That was the session's last stream: the server released its room (its own destroy, refused by Janus
            // with 426, is only logged) and the next publish makes a new one, and media flows through it.
            #expect(await eventually { await server.routedMediaStatus()?.rooms[sessionID] == nil })
            let third = Publisher(name: "third", videoCapture: PatternCapturer(width: 160, height: 120))
            try await alice.publish(third)
            let thirdID = try #require(third.stream?.streamID)
            #expect(await eventually { bob.streams[thirdID] != nil })
            let thirdRenderer = CountingRenderer()
            try await bob.subscribe(Subscriber(stream: try #require(bob.streams[thirdID]), videoRender: thirdRenderer))
            #expect(await eventually(timeout: .seconds(20)) { thirdRenderer.frames > 0 }, "media through the new room")
            let newRoom = await server.routedMediaStatus()?.rooms[sessionID]
            #expect(newRoom != nil && newRoom != room, "a new room: \(String(describing: newRoom)), old \(room)")
            await bob.disconnect()
            await alice.disconnect()
            await watcher.close()
        }
    }

    /// The server's Janus session expires (Janus's `session_timeout` is 3 s here, the server's keepalive 25 s: as
    /// when Janus was paused past its timeout): the publisher and the subscriber get 1570, the stream is unpublished
    /// for everyone, and the server frees everything it held for it: no handle, no room in its books nor at Janus,
    /// no dead link kept.
    @Test func anExpiredJanusSessionEndsItsStreamsAndFreesEverything() async throws {
        try await RoutedLab.run(sessionTimeout: 3) { lab, janus, server in
            let sessionID = try await server.createSession(mediaMode: .routed).sessionID
            let alice = try await RoutedLab.connect(server, sessionID, lab)
            let publisher = Publisher(name: "pattern", videoCapture: PatternCapturer(width: 160, height: 120))
            let publisherFailure = RoutedLab.firstFailure(publisher.events)
            try await alice.publish(publisher)
            let streamID = try #require(publisher.stream?.streamID)
            let bob = try await RoutedLab.connect(server, sessionID, lab)
            #expect(await eventually { bob.streams[streamID] != nil })
            let renderer = CountingRenderer()
            let subscriber = Subscriber(stream: try #require(bob.streams[streamID]), videoRender: renderer)
            let subscriberFailure = RoutedLab.firstFailure(subscriber.events)
            try await bob.subscribe(subscriber)
            #expect(await eventually(timeout: .seconds(20)) { renderer.frames > 0 })
            let room = try #require(await server.routedMediaStatus()?.rooms[sessionID])

            // No request for 3 s: Janus times the server's session out.
            let lost = try #require(try await RoutedLab.within(.seconds(15), "publisher failure") { await publisherFailure.value })
            #expect(lost.code == ErrorCode.mediaRouterFailed.rawValue, "\(lost)")
            let dropped = try #require(try await RoutedLab.within(.seconds(10), "subscriber failure") { await subscriberFailure.value })
            #expect(dropped.code == ErrorCode.mediaRouterFailed.rawValue, "\(dropped)")
            #expect(await eventually { bob.streams[streamID] == nil && alice.streams[streamID] == nil },
                    "the stream is unpublished for everyone")
            let released = await eventually {
                let s = await server.routedMediaStatus()
                return s?.publishers == 0 && s?.subscribers == 0 && s?.rooms.isEmpty == true
            }
            let status = await server.routedMediaStatus()
            #expect(released, "nothing held for the expired session: \(String(describing: status))")
            // The room outlived the Janus session at Janus; the server destroyed it through a new link.
            let gone = await eventually(timeout: .seconds(10)) {
                guard let watcher = try? await RoutedLab.admin(janus) else { return false }
                let exists = try? await watcher.admin.exists(room)
                await watcher.close()
                return exists == false
            }
            #expect(gone, "the room \(room) is destroyed at Janus")
            await bob.disconnect()
            await alice.disconnect()
        }
    }

    /// Janus killed mid-session (SIGKILL): the publisher and the subscriber of the routed stream get 1570 at once
    /// (their handles' event streams end with Janus's socket), and the server holds nothing at the dead instance.
    @Test func janusKilledMidSessionEndsRoutedMediaWithATypedError() async throws {
        try await RoutedLab.run { lab, janus, server in
            let sessionID = try await server.createSession(mediaMode: .routed).sessionID
            let alice = try await RoutedLab.connect(server, sessionID, lab)
            let publisher = Publisher(name: "pattern", videoCapture: PatternCapturer(width: 160, height: 120))
            let publisherFailure = RoutedLab.firstFailure(publisher.events)
            try await alice.publish(publisher)
            let streamID = try #require(publisher.stream?.streamID)
            let bob = try await RoutedLab.connect(server, sessionID, lab)
            #expect(await eventually { bob.streams[streamID] != nil })
            let renderer = CountingRenderer()
            let subscriber = Subscriber(stream: try #require(bob.streams[streamID]), videoRender: renderer)
            let subscriberFailure = RoutedLab.firstFailure(subscriber.events)
            try await bob.subscribe(subscriber)
            #expect(await eventually(timeout: .seconds(20)) { renderer.frames > 0 })

            janus.kill()
            let lost = try #require(try await RoutedLab.within(.seconds(10), "publisher failure") { await publisherFailure.value })
            #expect(lost.code == ErrorCode.mediaRouterFailed.rawValue, "\(lost)")
            let dropped = try #require(try await RoutedLab.within(.seconds(10), "subscriber failure") { await subscriberFailure.value })
            #expect(dropped.code == ErrorCode.mediaRouterFailed.rawValue, "\(dropped)")
            let released = await eventually {
                let s = await server.routedMediaStatus()
                return s?.publishers == 0 && s?.subscribers == 0 && s?.connected == false && s?.rooms.isEmpty == true
            }
            let status = await server.routedMediaStatus()
            #expect(released, "nothing held at the dead instance: \(String(describing: status))")
            await bob.disconnect()
            await alice.disconnect()
        }
    }
}

/// The routed lab: Janus in a lab host, a TokKitServer in the test process using it.
enum RoutedLab {
    static let ip = "/usr/sbin/ip"
    static let apiKey = "routed-key"
    static let apiSecret = "routed-secret-0123456789"

    static var logger: Logger {
        var logger = Logger(label: "tokkit.routed.tests")
        logger.logLevel = .warning
        return logger
    }

    /// Runs `body` with Janus in a new lab host and a server on 127.0.0.1 driving it; stops both whatever happens.
    /// `configure` adjusts the server's configuration first (e.g. to listen on the lab's test address).
    /// `sessionTimeout`: Janus's `session_timeout` in seconds.
    static func run(sessionTimeout: Int = 60, configure: (NetworkLab, inout ServerConfiguration) -> Void = { _, _ in },
                    _ body: (NetworkLab, JanusProcess, TokKitServer) async throws -> Void) async throws {
        try await NetworkLab.run { lab in
            let host = try await lab.addHost("janus")
            let janus = try await JanusProcess.start(
                JanusProcessConfiguration(mediaAddress: host.address, launcher: [ip, "netns", "exec", host.namespace],
                                          port: 8188, sessionTimeout: sessionTimeout, startTimeout: .seconds(30)),
                logger: logger)
            var configuration = ServerConfiguration(apiKey: apiKey, apiSecret: apiSecret)
            configuration.emptySessionTimeoutMs = 300
            configuration.janus = [RoutedMediaConfiguration(
                url: janus.url, apiSecret: janus.configuration.apiSecret,
                adminKey: janus.configuration.videoRoomAdminKey)]
            configure(lab, &configuration)
            let server = try TokKitServer(configuration: configuration, logger: logger)
            _ = try await server.start()
            do {
                try await body(lab, janus, server)
            } catch {
                print("janus log tail:\n\(janus.logTail(60))")
                await server.stop()
                await janus.stop(grace: .seconds(1))
                throw error
            }
            await server.stop()
            await janus.stop(grace: .seconds(2))
        }
    }

    /// A client connected to `sessionID` (through the server's address `host`), its peers gathering on the test
    /// process's lab address only.
    /// `count` new clients of `sessionID`, each subscribed to `streamID` (once it reached them) with a
    /// ``CountingRenderer``, in order: (session, subscriber, renderer).
    static func subscribers(_ count: Int, to streamID: StreamID, _ server: TokKitServer, _ sessionID: String,
                            _ lab: NetworkLab) async throws -> [(Session, Subscriber, CountingRenderer)] {
        var subscribers: [(Session, Subscriber, CountingRenderer)] = []
        for _ in 0..<count {
            let bob = try await connect(server, sessionID, lab)
            #expect(await eventually { bob.streams[streamID] != nil })
            let renderer = CountingRenderer()
            let subscriber = Subscriber(stream: try #require(bob.streams[streamID]), videoRender: renderer)
            try await bob.subscribe(subscriber)
            subscribers.append((bob, subscriber, renderer))
        }
        return subscribers
    }

    static func connect(_ server: TokKitServer, _ sessionID: String, _ lab: NetworkLab,
                        host: String = "127.0.0.1", role: Role = .publisher) async throws -> Session {
        var settings = SessionSettings()
        settings.logger.logLevel = .error
        let session = Session(apiKey: apiKey, sessionID: SessionID(sessionID),
                              serverURL: URL(string: "http://\(host):\(server.port ?? 0)")!, settings: settings)
        session.mediaNegotiator = WebRTCNegotiator(
            ice: ICEConfiguration(localAddresses: [lab.testAddress], includesLoopback: false))
        let token = try await server.issueToken(sessionID: sessionID, role: role, connectionData: "").token
        try await session.connect(token: token)
        return session
    }

    /// The first `failed` error among `events` (nil if they end first), read by a task started now.
    static func firstFailure<Event: Sendable>(_ events: AsyncStream<Event>) -> Task<SessionError?, Never> {
        Task {
            for await event in events {
                if let error = failure(of: event) { return error }
            }
            return nil
        }
    }

    private static func failure(of event: some Sendable) -> SessionError? {
        switch event {
        case let event as PublisherEvent: if case .failed(let error) = event { return error }
        case let event as SubscriberEvent: if case .failed(let error) = event { return error }
        default: break
        }
        return nil
    }

    /// Video bytes the publisher sent, summed over its peer connections.
    static func videoBytesSent(_ publisher: Publisher) -> UInt64 {
        publisher.statistics.subscriptions.reduce(0) { $0 + $1.videoTrack.bytesSent }
    }

    /// The test's own look at Janus (what the server holds there).
    struct Watcher {
        let connection: JanusConnection
        let session: JanusSession
        let admin: VideoRoomAdmin
        func close() async {
            try? await session.destroy()
            await connection.close()
        }
    }

    static func admin(_ janus: JanusProcess) async throws -> Watcher {
        let connection = try await janus.connect(logger: logger)
        let session = try await connection.createSession()
        return Watcher(connection: connection, session: session,
                       admin: try await VideoRoomAdmin.attach(to: session, adminKey: janus.configuration.videoRoomAdminKey))
    }

    /// Runs `body`, failing if it takes longer than `timeout`.
    static func within<T: Sendable>(_ timeout: Duration, _ what: String,
                                    _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard case .some(.some(let value)) = try await group.next() else {
                throw LabTimeout(description: "timed out after \(timeout): \(what)")
            }
            return value
        }
    }

    struct LabTimeout: Error, CustomStringConvertible {
        let description: String
    }
}
