import Testing
import TokKitProtocol
import TokKitServer

/// The registry's routed paths (Docs/Protocol.md 6.7) without a Janus: a server given one that cannot be reached.
/// What reaches Janus is tested against a real one in Tests/TokKitRoutedTests.
@Suite(.timeLimit(.minutes(1))) struct RoutedRegistryTests {
    static func withServer(_ body: (TestServer) async throws -> Void) async throws {
        try await TestServer.with({ $0.janus = RoutedMediaConfiguration(url: "ws://127.0.0.1:9", requestTimeoutMs: 2_000) }) {
            try await body($0)
        }
    }

    /// Sends `fields` with a fresh rid and returns the reply.
    static func request(_ member: ConformanceMember, _ fields: [String: Any]) async -> ServerMessage? {
        let rid = member.fresh()
        var message = fields
        message["rid"] = rid
        member.send(message)
        return await member.reply(to: rid)
    }

    @Test func relayedSessionsAreUnchangedOnAServerWithAJanus() async throws {
        try await Self.withServer { server in
            let session = try await server.session()  // relayed
            let alice = try await ConformanceMember.join(server, session, role: .publisher)
            let bob = try await ConformanceMember.join(server, session, role: .publisher)
            guard case let .ack(published)? = await Self.request(alice, ["type": "publish"]) else {
                Issue.record("publish not acked"); return
            }
            #expect(published.subscriberID == nil, "a relayed stream has no upstream")
            let streamID = try #require(published.streamID)
            let mark = alice.mark
            guard case let .ack(subscribed)? = await Self.request(bob, ["type": "subscribe", "streamId": streamID]) else {
                Issue.record("subscribe not acked"); return
            }
            let subscriberID = try #require(subscribed.subscriberID)
            // The publisher is asked to offer, and the subscriber's answer is relayed to it.
            _ = await Self.request(bob, ["type": "negotiation", "streamId": streamID, "subscriberId": subscriberID,
                                         "kind": "answer", "payload": "v=0"])
            _ = await Self.request(alice, ["type": "ping"])
            let types = alice.received(since: mark).compactMap { $0["type"] as? String }
            #expect(types.contains("subscribe") && types.contains("negotiation"), "\(types)")
        }
    }

    @Test func routedStreamsNegotiateWithTheServerNotThePublisher() async throws {
        try await Self.withServer { server in
            let session = try await server.server.createSession(mediaMode: .routed).sessionID
            let alice = try await ConformanceMember.join(server, session, role: .publisher)
            let bob = try await ConformanceMember.join(server, session, role: .publisher)
            guard case let .ack(published)? = await Self.request(alice, ["type": "publish"]) else {
                Issue.record("publish not acked"); return
            }
            let streamID = try #require(published.streamID)
            let upstream = try #require(published.subscriberID, "a routed stream has an upstream id")
            // Only its publisher negotiates on the upstream, and only as the offerer.
            guard case let .error(notMine)? = await Self.request(bob, [
                "type": "negotiation", "streamId": streamID, "subscriberId": upstream, "kind": "offer", "payload": "v=0"])
            else { Issue.record("someone else's upstream accepted"); return }
            #expect(notMine.code == .subscriberNotFound)
            guard case let .error(answer)? = await Self.request(alice, [
                "type": "negotiation", "streamId": streamID, "subscriberId": upstream, "kind": "answer", "payload": "v=0"])
            else { Issue.record("an answer on the upstream accepted"); return }
            #expect(answer.code == .illegalState)

            // A routed subscription: the publisher hears nothing of it; the subscriber may not offer.
            let mark = alice.mark
            guard case let .ack(subscribed)? = await Self.request(bob, ["type": "subscribe", "streamId": streamID]) else {
                Issue.record("subscribe not acked"); return
            }
            let subscriberID = try #require(subscribed.subscriberID)
            guard case let .error(offer)? = await Self.request(bob, [
                "type": "negotiation", "streamId": streamID, "subscriberId": subscriberID, "kind": "offer", "payload": "v=0"])
            else { Issue.record("a routed subscriber's offer accepted"); return }
            #expect(offer.code == .illegalState)
            guard case .ack? = await Self.request(bob, ["type": "unsubscribe", "subscriberId": subscriberID]) else {
                Issue.record("unsubscribe not acked"); return
            }
            _ = await Self.request(alice, ["type": "ping"])
            let types = alice.received(since: mark).compactMap { $0["type"] as? String }
            #expect(!types.contains("subscribe") && !types.contains("unsubscribe") && !types.contains("negotiation"),
                    "\(types)")
            var left = await server.server.routedMediaStatus()?.subscribers
            for _ in 0..<250 where left != 0 {
                try await Task.sleep(for: .milliseconds(20))
                left = await server.server.routedMediaStatus()?.subscribers
            }
            #expect(left == 0, "the waiting subscription is forgotten after unsubscribe")
        }
    }
}
