import Foundation
import Testing
@testable import TokKit
import TokKitProtocol
@testable import TokKitServer
import TokKitTesting

/// Janus answering "no such room" (426) in a routed session's room, through a real server and real clients: a
/// ``FakeJanus`` that loses the room silently once the publisher's offer is answered (a room lost without the
/// `destroyed` event a real Janus sends its participants; since rooms end with their last stream this is the only
/// way left to reach 426). The next request in that room is refused with 426: the server forgets the room and loses
/// every stream whose feed was in it (1570 to the publisher and its subscribers, the stream unpublished for
/// everyone, no handle kept), and the session's next publish gets a new room. Run inside `unshare -n` (127.0.0.1
/// only).
@Suite("Routed room gone at Janus (426) against a fake Janus", .serialized) struct RoutedRoomGoneTests {
    /// Publishes a raw stream and posts `sdp` as its offer (the fake Janus answers it, or not, by its content);
    /// returns the stream id.
    static func publish(_ alice: Session, name: String, sdp: String) async throws -> String {
        let ack = try await alice.request(.publish(.init(name: name, videoDimensions: .init(width: 640, height: 480))),
                                          purpose: .other).get()
        let streamID = try #require(ack.streamID), upstreamID = try #require(ack.subscriberID)
        #expect(alice.post(.negotiation(.init(streamID: streamID, subscriberID: upstreamID, kind: .offer,
                                              payload: sdp))))
        return streamID
    }

    /// A subscriber's `join` refused with 426: the subscriber and the publisher of the stream both fail (1570), the
    /// stream is unpublished for everyone; a new publish makes a new room and is answered.
    @Test func aSubscriberJoiningARoomJanusLostEndsTheStreamAndTheNextPublishGetsANewRoom() async throws {
        try await FakeJanusServer.run(requestTimeoutMs: 3_000, logger: RoutedMediaLaneTests.logger) { fake, routed in
            try await Self.subscriberJoiningALostRoom(fake, routed)
        }
    }

    /// The body of the test above, outside the closure (the compiler's SendNonSendable pass crashed on it inline).
    static func subscriberJoiningALostRoom(_ fake: FakeJanus, _ routed: FakeJanusServer) async throws {
        let server = routed.server
        let alice = try await routed.connect()
        let bob = try await routed.connect()
        let streamID = try await Self.publish(alice, name: "lost", sdp: "v=0 forget-room")
        #expect(await eventually { fake.seen.contains("forgot room") }, "Janus saw \(fake.seen)")
        let room = try #require(await server.routedMediaStatus()?.rooms[routed.sessionID])

        #expect(await eventually { bob.streams[StreamID(streamID)] != nil })
        let subscriber = Subscriber(stream: try #require(bob.streams[StreamID(streamID)]))
        let failure = RoutedLab.firstFailure(subscriber.events)
        try await bob.subscribe(subscriber)
        let refused = try await RoutedLab.within(.seconds(10), "subscriber failure") { await failure.value }
        print("room \(room) lost at Janus: the subscriber got \(String(describing: refused)); "
              + "Janus saw \(fake.seen)")
        #expect(refused?.code == ErrorCode.mediaRouterFailed.rawValue, "\(String(describing: refused))")
        #expect("\(String(describing: refused))".contains("426"), "Janus's code in the message")
        #expect(fake.seen.filter { $0 == "join subscriber" }.count == 1)
        #expect(await eventually {
            bob.streams[StreamID(streamID)] == nil && alice.streams[StreamID(streamID)] == nil
        }, "the stream is unpublished for everyone")
        let released = await eventually {
            let s = await server.routedMediaStatus()
            return s?.publishers == 0 && s?.subscribers == 0 && s?.rooms[routed.sessionID] == nil
        }
        let status = await server.routedMediaStatus()
        #expect(released, "nothing kept of the lost room: \(String(describing: status))")
        #expect(!fake.seen.contains("destroy"), "a room Janus lost is not destroyed again")

        // The session's next stream: a new room, answered.
        let creates = fake.seen.filter { $0 == "create" }.count
        let next = try await Self.publish(alice, name: "next", sdp: "v=0 fine")
        #expect(await eventually { fake.seen.filter { $0 == "create" }.count == creates + 1 },
                "Janus saw \(fake.seen)")
        let placed = await eventually {
            let s = await server.routedMediaStatus()
            return s?.publishers == 1 && s?.rooms[routed.sessionID].map { $0 != room } == true
        }
        let placedStatus = await server.routedMediaStatus()
        #expect(placed, "\(String(describing: placedStatus))")
        #expect(await eventually { bob.streams[StreamID(next)] != nil }, "the new stream reaches the others")
        await bob.disconnect()
        await alice.disconnect()
    }

    /// A second publisher's `join` refused with 426 (the room lost after the first stream's answer): that publish
    /// fails and so does the first stream, whose feed was in the room; both are unpublished for everyone and the
    /// server keeps no publisher handle and no room.
    @Test func aPublisherJoiningARoomJanusLostEndsEveryStreamOfTheRoom() async throws {
        try await FakeJanusServer.run(requestTimeoutMs: 3_000, logger: RoutedMediaLaneTests.logger) { fake, routed in
            try await Self.publisherJoiningALostRoom(fake, routed)
        }
    }

    /// The body of the test above, outside the closure (the compiler's SendNonSendable pass crashed on it inline).
    static func publisherJoiningALostRoom(_ fake: FakeJanus, _ routed: FakeJanusServer) async throws {
        let server = routed.server
        let alice = try await routed.connect()
        let carol = try await routed.connect()
        let first = try await Self.publish(alice, name: "first", sdp: "v=0 forget-room")
        #expect(await eventually { fake.seen.contains("forgot room") }, "Janus saw \(fake.seen)")
        #expect(await eventually { carol.streams[StreamID(first)] != nil })

        // The second stream: listed for the others first, then its offer (refused with 426 at its `join`).
        let ack = try await carol.request(.publish(.init(name: "second", videoDimensions: .init(width: 640, height: 480))),
                                          purpose: .other).get()
        let second = try #require(ack.streamID), upstreamID = try #require(ack.subscriberID)
        #expect(await eventually { alice.streams[StreamID(second)] != nil })
        #expect(carol.post(.negotiation(.init(streamID: second, subscriberID: upstreamID, kind: .offer,
                                              payload: "v=0 fine"))))
        let gone = await eventually {
            alice.streams[StreamID(first)] == nil && carol.streams[StreamID(first)] == nil
                && carol.streams[StreamID(second)] == nil && alice.streams[StreamID(second)] == nil
        }
        print("a publisher joining a lost room: Janus saw \(fake.seen)")
        let seen = (alice.streams.count, carol.streams.count)
        #expect(gone, "both streams unpublished: alice sees \(seen.0), carol \(seen.1)")
        #expect(fake.seen.filter { $0 == "join publisher" }.count == 2)
        let released = await eventually {
            let s = await server.routedMediaStatus()
            return s?.publishers == 0 && s?.rooms[routed.sessionID] == nil
        }
        let status = await server.routedMediaStatus()
        #expect(released, "\(String(describing: status))")
        await carol.disconnect()
        await alice.disconnect()
    }
}
