import Foundation
import Testing
import TokKitProtocol
import TokKitServer

/// A session in the state every client message of Docs/Protocol.md, 6.3 can act on: a moderator `owner`
/// publishing `streamID`, a publisher `peer` subscribed to it (`subscriberID`), a moderator `bystander` part of
/// neither, and a publisher `lost` whose socket is gone (awaiting resume). Fresh per use: a message may end any of it.
struct ConformanceFixture: Sendable {
    let server: TestServer
    let session: String
    let owner: ConformanceMember
    let peer: ConformanceMember
    let bystander: ConformanceMember
    let lost: ServerMessage.Connected
    let streamID: String
    let subscriberID: String

    /// The members with a socket.
    var members: [ConformanceMember] { [owner, peer, bystander] }

    static func make(_ server: TestServer) async throws -> ConformanceFixture {
        let session = try await server.session()
        let owner = try await ConformanceMember.join(server, session, role: .moderator)
        let peer = try await ConformanceMember.join(server, session, role: .publisher)
        let bystander = try await ConformanceMember.join(server, session, role: .moderator)
        let before = await server.server.stats().awaitingResume
        let lostMember = try await ConformanceMember.join(server, session, role: .publisher)
        guard let lost = lostMember.connected else { throw TestFailure("lost member did not connect") }
        lostMember.client.close()
        guard await server.stats(until: { $0.awaitingResume == before + 1 }).awaitingResume == before + 1 else {
            throw TestFailure("the closed socket's connection is not awaiting resume")
        }

        let publish = owner.fresh()
        owner.send(["type": "publish", "rid": publish, "name": "fixture"])
        guard case let .ack(published) = await owner.reply(to: publish), let streamID = published.streamID else {
            throw TestFailure("fixture publish")
        }
        let subscribe = peer.fresh()
        peer.send(["type": "subscribe", "rid": subscribe, "streamId": streamID])
        guard case let .ack(subscribed) = await peer.reply(to: subscribe), let subscriberID = subscribed.subscriberID else {
            throw TestFailure("fixture subscribe")
        }
        let fixture = ConformanceFixture(
            server: server, session: session, owner: owner, peer: peer, bystander: bystander, lost: lost,
            streamID: streamID, subscriberID: subscriberID)
        for member in fixture.members { guard await member.sync() else { throw TestFailure("fixture sync") } }
        return fixture
    }

    /// A valid `type` message (without `type` and `rid`) with every field 6.3 lists, optional ones with values
    /// other than their defaults, and the member that may send it; nil for a type this fixture does not know.
    func example(_ type: String) async throws -> (sender: ConformanceMember, fields: [String: Any])? {
        switch type {
        case "connect":
            return (try await ConformanceMember.open(server),
                    ["version": 1, "apiKey": TestServer.apiKey, "sessionId": session,
                     "token": try await server.token(session, role: .publisher)])
        case "resume":
            return (try await ConformanceMember.open(server),
                    ["version": 1, "connectionId": lost.connection.id, "resumeToken": lost.resumeToken])
        case "disconnect": return (peer, [:])
        case "ping": return (peer, ["seq": 7])
        case "publish":
            return (owner, ["name": "cam", "hasAudio": false, "hasVideo": false, "videoType": "screen",
                            "videoDimensions": ["width": 640, "height": 480], "frameRate": 15])
        case "unpublish": return (owner, ["streamId": streamID])
        case "updateStream":
            return (owner, ["streamId": streamID, "hasAudio": false, "hasVideo": false, "videoType": "custom",
                            "videoDimensions": ["width": 1280, "height": 720]])
        case "subscribe": return (peer, ["streamId": streamID, "subscribeToAudio": false, "subscribeToVideo": true])
        case "unsubscribe": return (peer, ["subscriberId": subscriberID])
        case "subscriberPreferences":
            return (peer, ["subscriberId": subscriberID, "preferredResolution": ["width": 320, "height": 180],
                           "preferredFrameRate": 15])
        case "negotiation":
            return (owner, ["streamId": streamID, "subscriberId": subscriberID, "kind": "offer", "payload": "v=0\r\n"])
        case "signal": return (peer, ["signalType": "chat", "data": "hi", "to": owner.id])
        case "forceDisconnect": return (bystander, ["connectionId": peer.id])
        case "forceUnpublish": return (bystander, ["streamId": streamID])
        case "forceMute": return (bystander, ["streamId": streamID])
        default: return nil
        }
    }
}
