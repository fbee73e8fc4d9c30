import NIOWebSocket
import Testing
import TokKitProtocol
@testable import TokKitServer

/// Requests of connected members over real sockets: role matrix, signal limits and stamping, relay, moderation.
@Suite(.timeLimit(.minutes(2))) struct SessionRegistryRequestsTests {
    /// Sends one request with a rid and returns the reply (`ack` or `error`) for it, skipping events.
    private func request(_ client: RawClient, _ message: ClientMessage, rid: Int, sourceLocation: SourceLocation = #_sourceLocation)
        async -> ServerMessage?
    {
        client.send(message, rid: rid)
        for _ in 0..<50 {
            guard let reply = await client.nextMessage(sourceLocation: sourceLocation) else { return nil }
            switch reply {
            case let .ack(ack) where ack.rid == rid: return reply
            case let .error(error) where error.rid == rid: return reply
            default: continue
            }
        }
        return nil
    }

    private func errorCode(_ reply: ServerMessage?) -> ErrorCode? {
        if case let .error(error) = reply { return error.code }
        return nil
    }

    @Test func roleMatrixOverTheSocket() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let (owner, _) = try await server.join(session, role: .moderator)
            guard case let .ack(published) = await request(owner, .publish(.init(name: "target")), rid: 1),
                  let target = published.streamID
            else { throw TestFailure("publish") }

            for role in Role.allCases {
                let (client, connected) = try await server.join(session, role: role)
                let me = connected.connection.id
                var rid = 100
                func attempt(_ message: ClientMessage) async -> ErrorCode? {
                    rid += 1
                    return errorCode(await request(client, message, rid: rid))
                }
                let publish = await attempt(.publish(.init(name: "x")))
                #expect((publish == nil) == role.mayPublish, "\(role) publish")
                if role.mayPublish == false { #expect(publish == .unableToPublish) }

                let subscribe = await attempt(.subscribe(.init(streamID: target)))
                #expect((subscribe == nil) == role.maySubscribe, "\(role) subscribe")
                if !role.maySubscribe { #expect(subscribe == .unableToSubscribe) }

                let signal = await attempt(.signal(.init(type: "t", data: "d")))
                #expect((signal == nil) == role.maySignal, "\(role) signal")
                if !role.maySignal { #expect(signal == .unableToSignal) }

                let mute = await attempt(.forceMute(.init(streamID: target)))
                #expect((mute == nil) == role.mayModerate, "\(role) forceMute")
                if !role.mayModerate { #expect(mute == .unableToForceMute) }

                let unpublish = await attempt(.forceUnpublish(.init(streamID: "no-such-stream")))
                #expect(unpublish == (role.mayModerate ? .streamNotFound : .unableToForceUnpublish), "\(role)")

                let disconnect = await attempt(.forceDisconnect(.init(connectionID: me)))
                #expect((disconnect == nil) == role.mayModerate, "\(role) forceDisconnect")
                if !role.mayModerate {
                    #expect(disconnect == .unableToForceDisconnect)
                    client.send(.disconnect)
                }
                #expect(await client.waitForClose().closed, "\(role) socket closed")
                await client.finished()
            }
            let stats = await server.stats { $0.connections == 1 }
            #expect(stats.connected == 1 && stats.subscriptions == 0, "\(stats)")
        }
    }

    @Test func signalLimitsGiveExactCodes() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let (client, _) = try await server.join(session)
            let cases: [(ClientMessage.Signal, ErrorCode?)] = [
                (.init(type: String(repeating: "a", count: 128), data: ""), nil),
                (.init(type: String(repeating: "a", count: 129), data: ""), .invalidSignalType),
                (.init(type: "no spaces", data: ""), .invalidSignalType),
                (.init(type: "ünïcode", data: ""), .invalidSignalType),
                (.init(type: "ok", data: String(repeating: "x", count: 8_192)), nil),
                (.init(type: "ok", data: String(repeating: "x", count: 8_193)), .signalDataTooLong),
                (.init(type: "ok", data: "", to: "no-such-connection"), .invalidParameter),
            ]
            for (index, (signal, expected)) in cases.enumerated() {
                let reply = await request(client, .signal(signal), rid: index + 1)
                #expect(errorCode(reply) == expected, "case \(index)")
            }
            // The socket survives all of it.
            client.send(.ping(.init(seq: 5)))
            var ponged = false
            for _ in 0..<10 where !ponged {
                if case .pong = await client.nextMessage() { ponged = true }
            }
            #expect(ponged)
        }
    }

    /// Issue 17, item 3 and the section 7 example: the optional fields of `publish` and `signal` may be left out and
    /// take the defaults Docs/Protocol.md states; a `signal` with only a bad `signalType` gets 1461.
    @Test func optionalFieldsMayBeLeftOutAndTakeTheDocumentedDefaults() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let (client, connected) = try await server.join(session)
            client.sendRaw(#"{"type":"publish","rid":1}"#)
            guard case let .ack(ack) = await client.nextMessage(), ack.rid == 1, let streamID = ack.streamID else {
                throw TestFailure("no ack for a bare publish")
            }
            guard case let .streamCreated(created) = await client.nextMessage() else { throw TestFailure("streamCreated") }
            #expect(created.stream.id == streamID && created.stream.connectionID == connected.connection.id)
            #expect(created.stream.name == "" && created.stream.hasAudio && created.stream.hasVideo)
            #expect(created.stream.videoType == .camera && created.stream.videoDimensions == nil)

            client.sendRaw(#"{"type":"publish","rid":2,"hasAudio":false,"videoType":"screen"}"#)
            guard case .ack = await client.nextMessage() else { throw TestFailure("no ack for a partial publish") }
            guard case let .streamCreated(partial) = await client.nextMessage() else { throw TestFailure("streamCreated 2") }
            #expect(!partial.stream.hasAudio && partial.stream.hasVideo && partial.stream.videoType == .screen)

            client.sendRaw(#"{"type":"signal","rid":3}"#)
            #expect(await client.nextMessage() == .ack(.init(rid: 3)))
            guard case let .signal(signal) = await client.nextMessage() else { throw TestFailure("signal") }
            #expect(signal.type == "" && signal.data == "" && signal.from == connected.connection.id)

            // Docs/Protocol.md, section 7, verbatim.
            client.sendRaw(#"{"type":"signal","rid":4,"signalType":"bad type!"}"#)
            guard case let .error(error) = await client.nextMessage() else { throw TestFailure("no error for a bad type") }
            #expect(error.rid == 4 && error.code == .invalidSignalType)
            #expect(error.message == "signal type may only contain A-Z a-z 0-9 - _ ~")
        }
    }

    /// Issue 17, item 4: `ping` with a `rid` got its `pong` but no `ack` (Docs/Protocol.md, 6.1: every request with
    /// a `rid` gets exactly one `ack` or `error`). Before `connect` too; without a `rid`, only the `pong`.
    @Test func pingWithARidIsAcknowledged() async throws {
        try await TestServer.with { server in
            let early = try await RawClient(port: server.port)
            early.send(.ping(.init(seq: 1)), rid: 21)
            #expect(await early.nextMessage() == .pong(.init(seq: 1)))
            #expect(await early.nextMessage() == .ack(.init(rid: 21)))

            let session = try await server.session()
            let (client, _) = try await server.join(session)
            client.send(.ping(.init(seq: 2)), rid: 22)
            #expect(await client.nextMessage() == .pong(.init(seq: 2)))
            #expect(await client.nextMessage() == .ack(.init(rid: 22)))
            client.send(.ping(.init(seq: 3)))
            client.send(.ping(.init()), rid: 23)
            #expect(await client.nextMessage() == .pong(.init(seq: 3)), "no ack without a rid")
            #expect(await client.nextMessage() == .pong(.init(seq: nil)))
            #expect(await client.nextMessage() == .ack(.init(rid: 23)))
        }
    }

    /// Docs/Protocol.md, 6.1: every request with a `rid` gets exactly one `ack` or `error`. `connect`, `resume` and
    /// `disconnect` with a `rid` got none on success (found by the conformance test).
    @Test func connectResumeAndDisconnectWithARidAreAcknowledged() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let client = try await RawClient(port: server.port)
            client.send(.connect(.init(apiKey: TestServer.apiKey, sessionID: session, token: try await server.token(session))), rid: 31)
            guard case let .connected(connected) = await client.nextMessage() else { throw TestFailure("connect") }
            #expect(await client.nextMessage() == .ack(.init(rid: 31)))

            client.close()  // lost without disconnect: awaiting resume
            #expect(await client.waitForClose().closed)
            _ = await server.stats { $0.awaitingResume == 1 }
            let resumed = try await RawClient(port: server.port)
            resumed.send(.resume(.init(connectionID: connected.connection.id, resumeToken: connected.resumeToken)), rid: 32)
            guard case let .connected(again) = await resumed.nextMessage(), again.resumed else { throw TestFailure("resume") }
            #expect(await resumed.nextMessage() == .ack(.init(rid: 32)))

            resumed.send(.disconnect, rid: 33)
            #expect(await resumed.nextMessage() == .ack(.init(rid: 33)))
            guard case .connectionDestroyed = await resumed.nextMessage() else { throw TestFailure("own connectionDestroyed") }
            let close = await resumed.waitForClose()
            #expect(close.closed && close.code == .normalClosure)
        }
    }

    @Test func theServerStampsTheTrueSender() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let (a, aConnected) = try await server.join(session)
            let (b, bConnected) = try await server.join(session)
            _ = await a.nextMessage()  // connectionCreated b
            // A forged `from` (and a forged nested sender) in the raw JSON is ignored.
            a.sendRaw(#"{"type":"signal","rid":1,"signalType":"chat","data":"hi","from":"\#(bConnected.connection.id)"}"#)
            guard case .ack = await a.nextMessage() else { throw TestFailure("ack") }
            for client in [a, b] {
                guard case let .signal(signal) = await client.nextMessage() else { throw TestFailure("signal") }
                #expect(signal.from == aConnected.connection.id && signal.type == "chat" && signal.data == "hi")
                #expect(signal.to == nil)
            }
            // Directed: only the target receives it.
            b.send(.signal(.init(type: "dm", data: "psst", to: aConnected.connection.id)), rid: 2)
            guard case .ack = await b.nextMessage() else { throw TestFailure("ack 2") }
            guard case let .signal(direct) = await a.nextMessage() else { throw TestFailure("direct") }
            #expect(direct.from == bConnected.connection.id && direct.to == aConnected.connection.id)
            b.send(.ping(.init(seq: 9)))
            #expect(await b.nextMessage() == .pong(.init(seq: 9)), "b got nothing but its pong")
        }
    }

    @Test func subscribeAndNegotiationAreRelayedBetweenTheTwoEnds() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let (publisher, publisherConnected) = try await server.join(session)
            guard case let .ack(published) = await request(publisher, .publish(.init(name: "cam")), rid: 1),
                  let streamID = published.streamID
            else { throw TestFailure("publish") }
            guard case .streamCreated = await publisher.nextMessage() else { throw TestFailure("streamCreated") }
            let (subscriber, subscriberConnected) = try await server.join(session, role: .subscriber)
            guard case .connectionCreated = await publisher.nextMessage() else { throw TestFailure("connectionCreated") }

            guard case let .ack(subscribed) = await request(subscriber, .subscribe(.init(streamID: streamID)), rid: 2),
                  let subscriberID = subscribed.subscriberID
            else { throw TestFailure("subscribe") }
            #expect(subscribed.streamID == streamID)
            guard case let .subscribe(asked) = await publisher.nextMessage() else { throw TestFailure("forwarded") }
            #expect(asked.streamID == streamID && asked.subscriberID == subscriberID)
            #expect(asked.from == subscriberConnected.connection.id)

            publisher.send(.negotiation(.init(streamID: streamID, subscriberID: subscriberID, kind: .offer, payload: "v=0 offer")))
            guard case let .negotiation(offer) = await subscriber.nextMessage() else { throw TestFailure("offer") }
            #expect(offer.kind == .offer && offer.payload == "v=0 offer" && offer.from == publisherConnected.connection.id)
            subscriber.send(.negotiation(.init(streamID: streamID, subscriberID: subscriberID, kind: .answer, payload: "v=0 answer")))
            guard case let .negotiation(answer) = await publisher.nextMessage() else { throw TestFailure("answer") }
            #expect(answer.kind == .answer && answer.from == subscriberConnected.connection.id)

            // A third party cannot inject into the subscription.
            let (intruder, _) = try await server.join(session)
            let injected = await request(
                intruder, .negotiation(.init(streamID: streamID, subscriberID: subscriberID, kind: .candidate, payload: "x")),
                rid: 3)
            #expect(errorCode(injected) == .subscriberNotFound)
            // Only the subscriber can unsubscribe; the publisher is told.
            #expect(errorCode(await request(publisher, .unsubscribe(.init(subscriberID: subscriberID)), rid: 4)) == .subscriberNotFound)
            guard case .ack = await request(subscriber, .unsubscribe(.init(subscriberID: subscriberID)), rid: 5) else {
                throw TestFailure("unsubscribe")
            }
            var told = false
            for _ in 0..<5 where !told {
                if case let .unsubscribe(event) = await publisher.nextMessage() {
                    #expect(event.subscriberID == subscriberID && event.from == subscriberConnected.connection.id)
                    told = true
                }
            }
            #expect(told)
            let stats = await server.stats { $0.subscriptions == 0 }
            #expect(stats.subscriptions == 0)
        }
    }

    @Test func streamUpdatesAndModeration() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let (publisher, publisherConnected) = try await server.join(session)
            guard case let .ack(published) = await request(publisher, .publish(.init(name: "cam")), rid: 1),
                  let streamID = published.streamID
            else { throw TestFailure("publish") }
            let (moderator, _) = try await server.join(session, role: .moderator)

            guard case .ack = await request(publisher, .updateStream(.init(streamID: streamID, hasVideo: false)), rid: 2) else {
                throw TestFailure("update")
            }
            guard case let .streamPropertyChanged(changed) = await moderator.nextMessage() else { throw TestFailure("changed") }
            #expect(changed.changed == [.hasVideo] && !changed.stream.hasVideo && !changed.forced)
            // Someone else's stream cannot be updated or unpublished.
            #expect(errorCode(await request(moderator, .unpublish(.init(streamID: streamID)), rid: 3)) == .illegalState)

            guard case .ack = await request(moderator, .forceMute(.init(streamID: streamID)), rid: 4) else {
                throw TestFailure("mute")
            }
            var sawMute = false
            var sawChange = false
            for _ in 0..<6 where !(sawMute && sawChange) {
                switch await publisher.nextMessage() {
                case let .muteForced(muted): sawMute = muted.streamID == streamID
                case let .streamPropertyChanged(event) where event.forced:
                    sawChange = event.changed == [.hasAudio] && !event.stream.hasAudio
                default: continue
                }
            }
            #expect(sawMute && sawChange)

            guard case .ack = await request(moderator, .forceDisconnect(.init(connectionID: publisherConnected.connection.id)), rid: 5)
            else { throw TestFailure("force disconnect") }
            var ownDestroyed = false
            for _ in 0..<6 where !ownDestroyed {
                if case let .connectionDestroyed(event) = await publisher.nextMessage() {
                    ownDestroyed = event.connection.id == publisherConnected.connection.id && event.reason == .forceDisconnected
                }
            }
            #expect(ownDestroyed)
            #expect(await publisher.waitForClose().code == .normalClosure)
            let stats = await server.stats { $0.connections == 1 && $0.streams == 0 }
            #expect(stats.connected == 1 && stats.streams == 0, "\(stats)")
        }
    }

    @Test func requestsBeforeConnectAndSecondConnectAreRefused() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let (client, _) = try await server.join(session)
            let token = try await server.token(session)
            let again = await request(client, .connect(.init(apiKey: TestServer.apiKey, sessionID: session, token: token)), rid: 1)
            #expect(errorCode(again) == .illegalState)
        }
    }
}
