import Testing
import TokKitProtocol
@testable import TokKitServer

/// A connection whose token the server minted `hidden` (its archive recorder's) sees the session and may subscribe,
/// but the other members never see it: no connectionCreated, not in `connected`'s list, no connectionDestroyed.
@Suite(.timeLimit(.minutes(2))) struct HiddenConnectionTests {
    @Test func aHiddenConnectionSubscribesUnseen() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let (a, aConnected) = try await server.join(session)
            a.send(.publish(.init(name: "cam")), rid: 1)
            guard case let .ack(published) = await a.nextMessage(), let streamID = published.streamID else {
                throw TestFailure("publish")
            }
            guard case .streamCreated = await a.nextMessage() else { throw TestFailure("streamCreated") }

            let token = try server.server.authority.issueHidden(sessionID: session, now: WallClock.seconds()).token
            let hidden = try await server.open(session, token: token)
            guard case let .connected(hiddenConnected) = await hidden.nextMessage() else { throw TestFailure("connected") }
            #expect(hiddenConnected.connections == [aConnected.connection], "the hidden one sees the members")
            #expect(hiddenConnected.streams.map(\.id) == [streamID])

            // A later member sees a, not the hidden connection; a hears of the member only.
            let (b, bConnected) = try await server.join(session)
            #expect(bConnected.connections == [aConnected.connection])
            #expect(await a.nextMessage() == .connectionCreated(.init(connection: bConnected.connection)),
                    "the first thing a hears of after publishing is b, not the hidden connection")
            #expect(await hidden.nextMessage() == .connectionCreated(.init(connection: bConnected.connection)))

            // It subscribes like anyone: the publisher is asked, from its id.
            hidden.send(.subscribe(.init(streamID: streamID)), rid: 2)
            guard case let .ack(subscribed) = await hidden.nextMessage(), let subscriberID = subscribed.subscriberID else {
                throw TestFailure("subscribe")
            }
            guard case let .subscribe(asked) = await a.nextMessage() else { throw TestFailure("forwarded") }
            #expect(asked.subscriberID == subscriberID && asked.from == hiddenConnected.connection.id)

            // It leaves: its subscription ends at the publisher, and nobody is told a connection left.
            hidden.send(.disconnect)
            guard case let .connectionDestroyed(own) = await hidden.nextMessage() else { throw TestFailure("own") }
            #expect(own.connection.id == hiddenConnected.connection.id)
            guard case let .unsubscribe(ended) = await a.nextMessage() else { throw TestFailure("unsubscribe") }
            #expect(ended.subscriberID == subscriberID)
            a.send(.ping(.init(seq: 7)))
            #expect(await a.nextMessage() == .pong(.init(seq: 7)), "a got no connectionDestroyed before its pong")
            b.send(.ping(.init(seq: 8)))
            #expect(await b.nextMessage() == .pong(.init(seq: 8)), "b got no connectionDestroyed before its pong")
        }
    }

    @Test func plainTokensCarryNoHiddenClaimAndMintedOnesDo() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let plain = try server.server.authority.verify(try await server.token(session), now: WallClock.seconds())
            #expect(plain.hidden == nil)
            let minted = try server.server.authority.issueHidden(sessionID: session, now: WallClock.seconds())
            let claims = try server.server.authority.verify(minted.token, now: WallClock.seconds())
            #expect(claims.hidden == true && claims.role == .subscriber, "hidden tokens are subscriber tokens")
        }
    }
}
