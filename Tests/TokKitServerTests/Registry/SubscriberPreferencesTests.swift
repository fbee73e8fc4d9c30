import Testing
import TokKitProtocol
@testable import TokKitServer

/// `subscriberPreferences` (Protocol.md 6.3) in a relayed session: accepted (nothing else happens) from the
/// subscribing connection, values out of range refused with 1011, someone else's subscription with 1112.
@Suite(.timeLimit(.minutes(1))) struct SubscriberPreferencesTests {
    private func reply(_ client: RawClient, _ message: ClientMessage, rid: Int) async -> ServerMessage? {
        client.send(message, rid: rid)
        for _ in 0..<50 {
            guard let reply = await client.nextMessage() else { return nil }
            switch reply {
            case let .ack(ack) where ack.rid == rid: return reply
            case let .error(error) where error.rid == rid: return reply
            default: continue
            }
        }
        return nil
    }

    private func code(_ reply: ServerMessage?) -> ErrorCode? {
        if case let .error(error) = reply { return error.code }
        return nil
    }

    @Test func acceptedFromTheSubscriberRefusedOutOfRangeOrFromOthers() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let (owner, _) = try await server.join(session, role: .publisher)
            guard case let .ack(published) = await reply(owner, .publish(.init(name: "cam")), rid: 1),
                  let streamID = published.streamID
            else { throw TestFailure("publish") }
            let (viewer, _) = try await server.join(session, role: .subscriber)
            guard case let .ack(subscribed) = await reply(viewer, .subscribe(.init(streamID: streamID)), rid: 2),
                  let subscriberID = subscribed.subscriberID
            else { throw TestFailure("subscribe") }

            func preferences(_ width: Int?, _ height: Int?, _ rate: Double?) -> ClientMessage {
                .subscriberPreferences(.init(subscriberID: subscriberID,
                                             preferredResolution: width.map { VideoDimensions(width: $0, height: height!) },
                                             preferredFrameRate: rate))
            }
            #expect(code(await reply(viewer, preferences(320, 180, 15), rid: 3)) == nil)
            #expect(code(await reply(viewer, preferences(nil, nil, nil), rid: 4)) == nil)
            #expect(code(await reply(viewer, preferences(0, 180, nil), rid: 5)) == .invalidParameter)
            #expect(code(await reply(viewer, preferences(320, 100_000, nil), rid: 6)) == .invalidParameter)
            #expect(code(await reply(viewer, preferences(nil, nil, 0), rid: 7)) == .invalidParameter)
            #expect(code(await reply(viewer, preferences(nil, nil, -5), rid: 8)) == .invalidParameter)
            // The publisher is not the subscribing connection.
            #expect(code(await reply(owner, preferences(320, 180, nil), rid: 9)) == .subscriberNotFound)
            #expect(code(await reply(viewer, .subscriberPreferences(.init(subscriberID: "nope")), rid: 10))
                    == .subscriberNotFound)
        }
    }
}
