import Foundation
import Testing
import TokKitProtocol
@testable import TokKitServer

/// The registry's routed paths (Docs/Protocol.md 6.7) without a Janus: a server given one that cannot be reached.
/// What reaches Janus is tested against a real one in Tests/TokKitRoutedTests.
@Suite(.timeLimit(.minutes(1))) struct RoutedRegistryTests {
    static func withServer(_ body: (TestServer) async throws -> Void) async throws {
        try await TestServer.with({ $0.janus = [RoutedMediaConfiguration(url: "ws://127.0.0.1:9", requestTimeoutMs: 2_000)] }) {
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

    /// Subscriptions to routed streams per connection are capped: each one past the cap is refused with 1430 and
    /// leaves nothing behind; ending one makes room again.
    @Test func routedSubscriptionsPerConnectionAreCapped() async throws {
        try await Self.withServer { server in
            let session = try await server.server.createSession(mediaMode: .routed).sessionID
            let alice = try await ConformanceMember.join(server, session, role: .publisher)
            let bob = try await ConformanceMember.join(server, session, role: .subscriber)
            guard case let .ack(published)? = await Self.request(alice, ["type": "publish"]) else {
                Issue.record("publish not acked"); return
            }
            let streamID = try #require(published.streamID)
            let cap = SessionRegistry.maxRoutedSubscriptionsPerConnection
            var held: [String] = []
            for _ in 0..<cap {
                guard case let .ack(ack)? = await Self.request(bob, ["type": "subscribe", "streamId": streamID]),
                      let subscriberID = ack.subscriberID
                else { Issue.record("subscribe \(held.count + 1) of \(cap) not acked"); return }
                held.append(subscriberID)
            }
            guard case let .error(refused)? = await Self.request(bob, ["type": "subscribe", "streamId": streamID]) else {
                Issue.record("a subscription past the cap accepted"); return
            }
            #expect(refused.code == .limitReached, "\(refused)")
            guard case .ack? = await Self.request(bob, ["type": "unsubscribe", "subscriberId": held[0]]) else {
                Issue.record("unsubscribe not acked"); return
            }
            guard case .ack? = await Self.request(bob, ["type": "subscribe", "streamId": streamID]) else {
                Issue.record("no room again after an unsubscribe"); return
            }
        }
    }

    /// A client looping `subscribe`/`unsubscribe` on a routed stream while the media router is slow (a Janus that
    /// accepts the connection and never answers: the publisher's offer holds the session's lane) is bounded: each
    /// `subscribe` and `unsubscribe` counts against the client's pending routed messages, a `subscribe` past
    /// ``RoutedMedia/defaultMaxPendingPerConnection`` is refused with 1430, while `unsubscribe` never is.
    @Test(.timeLimit(.minutes(1))) func aSubscribeLoopIsBoundedPerConnection() async throws {
        let silent = try SilentListener()
        defer { silent.close() }
        let janus = RoutedMediaConfiguration(url: "ws://127.0.0.1:\(silent.port)", requestTimeoutMs: 8_000)
        try await TestServer.with({ $0.janus = [janus] }) { server in
            let session = try await server.server.createSession(mediaMode: .routed).sessionID
            let alice = try await ConformanceMember.join(server, session, role: .publisher)
            let bob = try await ConformanceMember.join(server, session, role: .subscriber)
            guard case let .ack(published)? = await Self.request(alice, ["type": "publish"]) else {
                Issue.record("publish not acked"); return
            }
            let streamID = try #require(published.streamID)
            let upstream = try #require(published.subscriberID)
            guard case .ack? = await Self.request(alice, [
                "type": "negotiation", "streamId": streamID, "subscriberId": upstream, "kind": "offer", "payload": "v=0"])
            else { Issue.record("offer not acked"); return }
            guard case let .ack(first)? = await Self.request(bob, ["type": "subscribe", "streamId": streamID]),
                  let kept = first.subscriberID
            else { Issue.record("first subscribe not acked"); return }
            var accepted = 0
            var refusal: ServerMessage.ErrorReply?
            for _ in 0..<400 {
                let reply = await Self.request(bob, ["type": "subscribe", "streamId": streamID])
                if case let .error(error)? = reply { refusal = error; break }
                guard case let .ack(ack)? = reply, let subscriberID = ack.subscriberID else {
                    Issue.record("subscribe neither acked nor refused: \(String(describing: reply))"); return
                }
                accepted += 1
                guard case .ack? = await Self.request(bob, ["type": "unsubscribe", "subscriberId": subscriberID]) else {
                    Issue.record("unsubscribe not acked"); return
                }
            }
            // 1 + 2 × 128 = 257 pending: the 129th loop subscribe finds 257 ≥ 256 and is refused.
            #expect(refusal?.code == .limitReached, "\(String(describing: refusal))")
            #expect(accepted == RoutedMedia.defaultMaxPendingPerConnection / 2, "accepted \(accepted)")
            // Over the bound, unsubscribe still works.
            guard case .ack? = await Self.request(bob, ["type": "unsubscribe", "subscriberId": kept]) else {
                Issue.record("unsubscribe over the bound not acked"); return
            }
        }
    }
}

/// A TCP listener on 127.0.0.1 that never accepts: connections complete in the kernel's backlog and then hear
/// nothing (a Janus that hangs). Closed by ``close()``.
final class SilentListener: Sendable {
    let port: Int
    private let fd: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else {
            Glibc.close(fd)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { Glibc.close(fd) }
}
