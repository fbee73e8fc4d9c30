import Foundation
import Synchronization
import Testing
import TokKitJanus
import TokKitNetworkLab
import TokKitPeer
import TokKitRTP
import TokKitSDP

/// TokKitJanus against a real Janus 1.1.2 in a network-lab host (run inside `unshare -n`, as scripts/test does).
@Suite("Janus in the lab", .serialized) struct JanusLabTests {
    /// Rooms, a publisher with TokKit's own offer, a subscriber given Janus's offer, and everything taken down.
    @Test func roomsPublishersAndSubscribersNegotiateWithARealJanus() async throws {
        try await JanusLab.run { lab, host, janus in
            print("janus started in \(janus.startupTime)")
            let connection = try await janus.connect(logger: JanusLab.logger)
            let info = try #require(connection.serverInfo)
            #expect(info.versionString == "1.1.2")
            #expect(info.plugins == [VideoRoom.plugin], "only the VideoRoom plugin is loaded")
            #expect(info.transports == ["janus.transport.websockets"])
            let session = try await connection.createSession()
            let admin = try await VideoRoomAdmin.attach(to: session, adminKey: janus.configuration.videoRoomAdminKey)

            // Request latency: `exists`, a synchronous plugin request, twenty times.
            var latencies: [Duration] = []
            for _ in 0..<20 {
                let start = ContinuousClock.now
                #expect(try await admin.exists(424_242) == false)
                latencies.append(ContinuousClock.now - start)
            }
            latencies.sort()
            print("janus exists round trip: median \(latencies[10]), max \(latencies[19])")

            let room = try await admin.createRoom(id: 424_242, VideoRoomSettings(publishers: 4, description: "test"))
            #expect(room == 424_242)
            #expect(try await admin.exists(room))

            // The publisher: TokKit's offer (Opus + VP8, sendonly) → Janus's answer, which TokKitSDP reads.
            let publisher = try await VideoRoomPublisher.attach(to: session)
            let joined = try await publisher.join(room: room, display: "alice")
            #expect(joined.room == room)
            #expect(joined.publishers.isEmpty)
            let peer = try JanusLab.peer(lab, publishing: true)
            defer { peer.close() }
            let offer = try peer.createOffer()
            let answerText = try await publisher.publish(offer: offer.sdp)
            let answer = try SessionDescription(parsing: answerText)
            #expect(answer.media.count == 2)
            let audio = try #require(answer.media.first { $0.kind == "audio" })
            let video = try #require(answer.media.first { $0.kind == "video" })
            #expect(audio.codecs.contains { $0.name.lowercased() == "opus" })
            #expect(video.codecs.contains { $0.name.lowercased() == "vp8" })
            #expect(!video.codecs.contains { $0.name.lowercased() == "h264" }, "the room allows VP8 only")
            #expect(audio.direction == .recvonly && video.direction == .recvonly)
            #expect(answerText.contains(host.address), "Janus's candidates are on its lab address")
            #expect(!answerText.contains("127.0.0.1"))
            try peer.setRemoteDescription(answer)
            // Janus offers a feed to subscribers once its PeerConnection is up.
            let trickle = JanusLab.trickle(peer, to: publisher.handle)
            defer { trickle.cancel() }
            _ = try await firstEvent(publisher.events, "publisher webrtcup", timeout: .seconds(15)) { $0 == .webrtcUp }

            // The room lists the publisher; a subscriber gets Janus's offer naming its streams.
            let participants = try await admin.participants(in: room)
            #expect(participants.map(\.id) == [joined.id])
            #expect(participants.first?.publisher == true)
            let subscriber = try await VideoRoomSubscriber.attach(to: session)
            let subscription = try await subscriber.join(room: room, streams: [VideoRoomStreamRequest(feed: joined.id)])
            #expect(subscription.room == room)
            #expect(Set(subscription.streams.map(\.type)) == ["audio", "video"])
            #expect(subscription.streams.allSatisfy { $0.feedID == joined.id })
            let janusOffer = try SessionDescription(parsing: subscription.offer)
            #expect(janusOffer.media.count == 2)
            #expect(janusOffer.media.allSatisfy { $0.direction == .sendonly })
            #expect(janusOffer.media.contains { m in m.codecs.contains { $0.name.lowercased() == "vp8" } })

            // Taken down: subscription left, publisher unpublished and gone, room destroyed, handles detached.
            try await subscriber.leave()
            try await subscriber.detach()
            #expect(!subscriber.handle.isAttached)
            try await publisher.unpublish()
            _ = try await firstEvent(publisher.events, "publisher hangup") {
                if case .hangup = $0 { true } else { false }
            }
            try await publisher.leave()
            try await publisher.detach()
            #expect(!publisher.handle.isAttached)
            let ended = try await within(.seconds(5), "publisher events end") {
                var last: VideoRoomEvent?
                for await event in publisher.events { last = event }
                return last
            }
            #expect(ended == .detached)
            try await admin.destroyRoom(room)
            #expect(try await admin.exists(room) == false)
            await #expect(throws: JanusError.handleDetached(publisher.handle.id)) {
                _ = try await publisher.join(room: room)
            }
            try await admin.handle.detach()
            try await session.destroy()
            #expect(!session.isLive)
            await connection.close()
            #expect(connection.malformedMessages == 0)
        }
    }

    /// The real proof routed mode builds on: a TokKit publisher sends RTP to Janus, a TokKit subscriber receives
    /// it from Janus (Janus's SFU forwarding, DTLS-SRTP both ways).
    @Test func mediaFromATokKitPublisherReachesATokKitSubscriberThroughJanus() async throws {
        try await JanusLab.run { lab, _, janus in
            let connection = try await janus.connect(logger: JanusLab.logger)
            let session = try await connection.createSession()
            let admin = try await VideoRoomAdmin.attach(to: session, adminKey: janus.configuration.videoRoomAdminKey)
            let room = try await admin.createRoom()

            // A second participant that only watches the room learns of the new publisher.
            let watcher = try await VideoRoomPublisher.attach(to: session)
            _ = try await watcher.join(room: room, display: "watcher")

            let publisher = try await VideoRoomPublisher.attach(to: session)
            let joined = try await publisher.join(room: room, display: "alice")
            let sender = try JanusLab.peer(lab, publishing: true)
            defer { sender.close() }
            let senderTrickle = JanusLab.trickle(sender, to: publisher.handle)
            defer { senderTrickle.cancel() }
            let answer = try await publisher.publish(offer: try sender.createOffer().sdp)
            try sender.setRemoteDescription(try SessionDescription(parsing: answer))
            let publisherUp = Task { try await firstEvent(publisher.events, "publisher webrtcup", timeout: .seconds(15)) { $0 == .webrtcUp } }
            let connectedAt = ContinuousClock.now
            #expect(await poll(.seconds(15)) { sender.state == .connected }, "publisher PeerConnection: \(sender.state)")
            print("publisher connected to Janus in \(ContinuousClock.now - connectedAt)")
            _ = try await publisherUp.value
            let announced = try await firstEvent(watcher.events, "publishers event") {
                if case .publishers = $0 { true } else { false }
            }
            guard case .publishers(let feeds) = announced else { return }
            #expect(feeds.map(\.id) == [joined.id])
            #expect(Set(feeds.first?.streams.map(\.type) ?? []) == ["audio", "video"])

            // Send audio and video packets every 20 ms while the subscriber connects and receives.
            let sending = Task.detached {
                var payload = [UInt8](repeating: 0x5A, count: 160)
                payload[0] = 0x10  // VP8 payload descriptor: S=1, partition 0
                var i: UInt32 = 0
                while !Task.isCancelled {
                    payload.withUnsafeBytes { p in
                        try? sender.sendRTP(.audio, payload: p, timestamp: i &* 960)
                        try? sender.sendRTP(.video, payload: p, timestamp: i &* 1_800, marker: true)
                    }
                    i &+= 1
                    try? await Task.sleep(for: .milliseconds(20))
                }
            }
            defer { sending.cancel() }

            let subscriber = try await VideoRoomSubscriber.attach(to: session)
            let receiver = try JanusLab.peer(lab, publishing: false)
            defer { receiver.close() }
            let audioPackets = Counter(), videoPackets = Counter()
            receiver.setReceiveHandler(.audio) { _ in audioPackets.increment() }
            receiver.setReceiveHandler(.video) { _ in videoPackets.increment() }
            let subscription = try await subscriber.join(room: room, streams: [VideoRoomStreamRequest(feed: joined.id)])
            let receiverAnswer = try receiver.createAnswer(for: try SessionDescription(parsing: subscription.offer))
            let receiverTrickle = JanusLab.trickle(receiver, to: subscriber.handle)
            defer { receiverTrickle.cancel() }
            let subscribedAt = ContinuousClock.now
            try await subscriber.start(answer: receiverAnswer.sdp)
            #expect(await poll(.seconds(15)) { receiver.state == .connected }, "subscriber PeerConnection: \(receiver.state)")
            let received = await poll(.seconds(15)) {
                audioPackets.value >= 25 && videoPackets.value >= 25
            }
            print("subscriber: start to 25 audio + 25 video packets in \(ContinuousClock.now - subscribedAt); "
                  + "audio \(audioPackets.value), video \(videoPackets.value)")
            #expect(received, "audio \(audioPackets.value), video \(videoPackets.value)")

            // Layer selection (what simulcast preferences will use) is accepted on the video m-line.
            let videoMid = try #require(subscription.streams.first { $0.type == "video" }?.mid)
            try await subscriber.configure(mid: videoMid, substream: 0, temporal: 0)
            await #expect(throws: JanusError.invalidArgument("substream 3 is not 0...2")) {
                try await subscriber.configure(mid: videoMid, substream: 3)
            }

            // Unpublishing is announced to the room and ends the subscription's media.
            try await publisher.unpublish()
            let gone = try await firstEvent(watcher.events, "unpublished event") {
                if case .unpublished = $0 { true } else { false }
            }
            #expect(gone == .unpublished(feed: joined.id))
            try await admin.destroyRoom(room)
            try await session.destroy()
            await connection.close()
        }
    }

    /// Janus's refusals arrive as typed errors with Janus's own codes.
    @Test func refusalsAreTypedErrorsWithJanusCodes() async throws {
        try await JanusLab.run { _, _, janus in
            let connection = try await janus.connect(logger: JanusLab.logger)
            let session = try await connection.createSession()
            let admin = try await VideoRoomAdmin.attach(to: session, adminKey: janus.configuration.videoRoomAdminKey)

            // Unknown room: joining, subscribing, destroying.
            let publisher = try await VideoRoomPublisher.attach(to: session)
            await #expect(throws: JanusError.plugin(code: VideoRoomErrorCode.noSuchRoom, reason: "No such room (987654)")) {
                _ = try await publisher.join(room: 987_654)
            }
            let subscriber = try await VideoRoomSubscriber.attach(to: session)
            await expectCode(VideoRoomErrorCode.noSuchRoom) {
                _ = try await subscriber.join(room: 987_654, streams: [VideoRoomStreamRequest(feed: 1)])
            }
            await expectCode(VideoRoomErrorCode.noSuchRoom) { try await admin.destroyRoom(987_654) }

            // A room that exists already; a feed that does not; a room without the admin key.
            let room = try await admin.createRoom()
            await expectCode(VideoRoomErrorCode.roomExists) { _ = try await admin.createRoom(id: room) }
            await expectCode(VideoRoomErrorCode.noSuchFeed) {
                _ = try await subscriber.join(room: room, streams: [VideoRoomStreamRequest(feed: 55)])
            }
            await expectCode(VideoRoomErrorCode.missingElement) {
                _ = try await VideoRoomAdmin(handle: admin.handle, adminKey: nil).createRoom()
            }

            // Malformed requests: a mistyped element, an unknown plugin request, an unknown core request, an
            // SDP that is not one.
            await expectCode(VideoRoomErrorCode.invalidElement) {
                _ = try await admin.handle.message(["request": "create", "publishers": "many",
                                                    "admin_key": .string(janus.configuration.videoRoomAdminKey ?? "")])
            }
            await expectCode(VideoRoomErrorCode.invalidRequest) {
                _ = try await admin.handle.message(["request": "no-such-request"])
            }
            await expectCode(JanusErrorCode.invalidRequestPath) { _ = try await connection.rawRequest("nonsense") }
            _ = try await publisher.join(room: room)
            do throws(JanusError) {
                _ = try await publisher.publish(offer: "v=0\r\nthis is not SDP\r\n")
                Issue.record("Janus accepted a broken offer")
            } catch {
                #expect(error.code != nil, "a Janus refusal, got \(error)")
            }

            // A wrong API secret: Janus answers `info` (so the instance is reached) but refuses the session.
            let intruder = try await JanusConnection.connect(to: janus.url, options: .init(apiSecret: "wrong"),
                                                             logger: JanusLab.logger)
            await expectCode(JanusErrorCode.unauthorized) { _ = try await intruder.createSession() }
            await intruder.close()

            // The connection survived every refusal.
            #expect(try await admin.exists(room))
            #expect(connection.malformedMessages == 0)
            try await admin.destroyRoom(room)
            try await session.destroy()
            await connection.close()
        }
    }

    /// Janus dies while a request is pending: the request fails with transport-closed, the handles' event streams
    /// end, the session is gone, later requests fail at once, and the process reports its exit.
    @Test func janusKilledMidSessionFailsPendingRequestsAndEndsEventStreams() async throws {
        try await JanusLab.run { _, _, janus in
            let connection = try await janus.connect(options: .init(requestTimeout: .seconds(20)),
                                                     logger: JanusLab.logger)
            let session = try await connection.createSession()
            let admin = try await VideoRoomAdmin.attach(to: session, adminKey: janus.configuration.videoRoomAdminKey)
            let room = try await admin.createRoom()
            let publisher = try await VideoRoomPublisher.attach(to: session)
            _ = try await publisher.join(room: room)

            let events = Task { () -> Int in
                var count = 0
                for await _ in publisher.events { count += 1 }
                return count
            }
            // Frozen first, so the request is surely pending when Janus dies: sent only once the kernel shows Janus
            // stopped. (Twice, once under ThreadSanitizer and once in a normal run, the request was answered after
            // SIGSTOP had been sent; Janus's state is now checked before the request and again before the kill.)
            kill(janus.pid, SIGSTOP)
            let frozen = await poll(.seconds(2)) { processState(janus.pid) == "T" }
            try #require(frozen, "Janus did not stop: state \(processState(janus.pid).map(String.init) ?? "gone")")
            let pending = Task { () -> JanusError? in
                do throws(JanusError) {
                    _ = try await admin.exists(room)
                    return nil
                } catch {
                    return error
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            let stateBeforeKill = processState(janus.pid).map(String.init) ?? "gone"
            let killedAt = ContinuousClock.now
            janus.kill()
            let failure = try await within(.seconds(5), "pending request fails") { await pending.value }
            print("pending request failed \(ContinuousClock.now - killedAt) after the kill: \(failure.map { "\($0)" } ?? "-")")
            guard case .transportClosed? = failure else {
                Issue.record("expected transportClosed, got \(String(describing: failure)); Janus's state before the kill: \(stateBeforeKill)")
                return
            }
            _ = try await within(.seconds(5), "event stream ends") { await events.value }
            #expect(connection.isClosed)
            #expect(!session.isLive)
            #expect(!publisher.handle.isAttached)
            await #expect(throws: JanusError.self) { _ = try await admin.exists(room) }
            let status = await janus.waitForExit(timeout: .seconds(5))
            #expect(status == SIGKILL, "exit status \(String(describing: status))")
            await connection.close()
        }
    }

    /// An instance that is not there: refused (nothing listens), silent (packets dropped), or not Janus at all
    /// fails with a typed error within the connect deadline.
    @Test func anUnreachableInstanceFailsWithinTheConnectDeadline() async throws {
        try await NetworkLab.run { lab in
            let empty = try await lab.addHost("empty")
            let silent = try await lab.addHost("silent")
            try await lab.impair(silent, Impairments(offline: true))
            let options = JanusConnection.Options(connectTimeout: .seconds(2))
            for (host, label) in [(empty, "refused"), (silent, "silent")] {
                let start = ContinuousClock.now
                do throws(JanusError) {
                    _ = try await JanusConnection.connect(to: "ws://\(host.address):8188", options: options,
                                                          logger: JanusLab.logger)
                    Issue.record("\(label): connected")
                } catch {
                    guard case .unreachable = error else { Issue.record("\(label): \(error)"); continue }
                }
                let elapsed = ContinuousClock.now - start
                print("\(label) instance: unreachable after \(elapsed)")
                #expect(elapsed < .seconds(4), "\(label) took \(elapsed)")
            }
            // A process that is not Janus: JanusProcess reports its exit and output, within its start timeout.
            let host = try await lab.addHost("broken")
            let start = ContinuousClock.now
            do throws(JanusError) {
                _ = try await JanusProcess.start(JanusProcessConfiguration(
                    mediaAddress: host.address, executable: "/bin/false",
                    launcher: [JanusLab.ip, "netns", "exec", host.namespace], port: 8188, startTimeout: .seconds(10)))
                Issue.record("/bin/false started as Janus")
            } catch {
                guard case .processFailed(let status, _) = error else { Issue.record("\(error)"); return }
                #expect(status == 1)
            }
            #expect(ContinuousClock.now - start < .seconds(5))
        }
    }

    /// The embedded deployment: Janus as a child of this process (no launcher), its API on 127.0.0.1 and a free
    /// port, its media on this process's non-loopback address; stopped gracefully, its configuration removed.
    @Test func anEmbeddedJanusRunsBesideItsOwnerWithItsAPIOnLoopback() async throws {
        try await NetworkLab.run { lab in
            let janus = try await JanusProcess.start(
                JanusProcessConfiguration(mediaAddress: lab.testAddress, listenAddress: "127.0.0.1"),
                logger: JanusLab.logger)
            #expect(janus.url.hasPrefix("ws://127.0.0.1:"))
            #expect(janus.url != "ws://127.0.0.1:8188" || janus.configuration.port == 8188)
            do {
                let connection = try await janus.connect(logger: JanusLab.logger)
                let session = try await connection.createSession()
                let admin = try await VideoRoomAdmin.attach(to: session,
                                                            adminKey: janus.configuration.videoRoomAdminKey)
                let room = try await admin.createRoom()
                #expect(try await admin.exists(room))
                await connection.close()
            } catch {
                print("janus log tail:\n\(janus.logTail(60))")
                await janus.stop(grace: .seconds(1))
                throw error
            }
            let stoppedAt = ContinuousClock.now
            await janus.stop(grace: .seconds(5))
            print("embedded janus stopped in \(ContinuousClock.now - stoppedAt), status \(String(describing: janus.exitStatus))")
            #expect(!janus.isRunning)
            #expect(janus.exitStatus == 0, "Janus exits by itself on SIGTERM (it must not inherit a blocked SIGTERM)")
            #expect(!FileManager.default.fileExists(atPath: janus.configurationDirectory))
        }
    }

    /// An owner that drops its ``JanusProcess`` without `stop()` does not leave Janus running: the child is killed
    /// and its configuration folder (holding the secrets) removed.
    @Test func aJanusProcessDroppedWithoutStopIsKilled() async throws {
        try await NetworkLab.run { lab in
            var janus: JanusProcess? = try await JanusProcess.start(
                JanusProcessConfiguration(mediaAddress: lab.testAddress, listenAddress: "127.0.0.1"),
                logger: JanusLab.logger)
            let pid = try #require(janus?.pid)
            let directory = try #require(janus?.configurationDirectory)
            #expect(Self.isAlive(pid))
            janus = nil
            let gone = await pollUntil(.seconds(10)) { !Self.isAlive(pid) }
            #expect(gone, "Janus (pid \(pid)) still runs after its JanusProcess was dropped")
            if !gone { kill(pid, SIGKILL) }
            #expect(!FileManager.default.fileExists(atPath: directory))
        }
    }

    /// Whether `pid` runs (exists and is not a zombie waiting to be reaped).
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")")
        else { return false }
        let state = stat[stat.index(after: close)...].split(separator: " ").first
        return state != "Z" && state != "X"
    }

    /// Keepalives keep a session alive past Janus's session timeout; without them Janus ends it, and the handles'
    /// event streams end.
    @Test func keepalivesKeepSessionsAliveAndJanusTimeoutsEndThem() async throws {
        try await JanusLab.run(sessionTimeout: 3) { _, _, janus in
            let connection = try await janus.connect(logger: JanusLab.logger)
            let kept = try await connection.createSession(keepaliveInterval: .seconds(1))
            let keptHandle = try await kept.attach(plugin: VideoRoom.plugin)
            // 25 s is longer than the 3 s timeout: Janus ends this one.
            let dropped = try await connection.createSession(keepaliveInterval: .seconds(25))
            let droppedHandle = try await dropped.attach(plugin: VideoRoom.plugin)
            let droppedEvents = Task { for await _ in droppedHandle.events {} }
            _ = try await within(.seconds(15), "Janus times the silent session out") { await droppedEvents.value }
            #expect(!dropped.isLive)
            #expect(kept.isLive)
            #expect(keptHandle.isAttached)
            // The kept session still works after more than twice the timeout.
            let admin = VideoRoomAdmin(handle: keptHandle, adminKey: janus.configuration.videoRoomAdminKey)
            #expect(try await admin.exists(1) == false)
            try await kept.destroy()
            await connection.close()
        }
    }
}

/// Counts packets from the network thread.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

/// Expects `body` to throw a Janus or plugin refusal with `code`.
func expectCode(_ code: Int, sourceLocation: SourceLocation = #_sourceLocation,
                _ body: () async throws -> Void) async {
    do {
        try await body()
        Issue.record("no error; expected code \(code)", sourceLocation: sourceLocation)
    } catch {
        #expect((error as? JanusError)?.code == code, "\(error)", sourceLocation: sourceLocation)
    }
}
