import Foundation
import Hummingbird
import Testing
import TokKitProtocol
@testable import TokKitServer

/// Docs/Protocol.md, 6.4 (server messages), row by row, against what a live server sends: one session goes through
/// every request, and each type the table lists must have been sent (unless its row says "not emitted yet") with
/// exactly the listed fields: every field not marked `?` present, nothing beyond the list. A field whose note lists
/// values (`a` \| `b`) only takes those, and they are the model's cases. The object shapes after the table
/// (`ConnectionInfo`, `IceServer`, `StreamInfo`) are held to the same rule wherever they appear.
@Suite(.timeLimit(.minutes(2))) struct ServerMessageConformanceTests {
    /// The values each enumerated field may take, from the model (what the table's value lists must equal).
    static let modelValues: [String: Set<String>] = [
        "connectionDestroyed.reason": Set(DisconnectReason.allCases.map(\.rawValue)),
        "streamDestroyed.reason": Set(StreamDestroyedReason.allCases.map(\.rawValue)),
        "streamPropertyChanged.changed": Set(StreamProperty.allCases.map(\.rawValue)),
    ]

    @Test func everyRowMatchesWhatTheServerSends() async throws {
        let document = try ProtocolDocument.load()
        let table = try document.table(in: "6.4")
        let (typeColumn, fieldsColumn) = (try table.column("type"), try table.column("fields"))
        let sent = try await Self.everyMessage()
        let sentTypes = Set(sent.compactMap { $0["type"] as? String })
        var documented = Set<String>()
        for cells in table.rows {
            guard let type = ProtocolCell.backticked(cells[typeColumn]).first else {
                Issue.record("6.4 row without a type: \(cells)")
                continue
            }
            documented.insert(type)
            let fields = ProtocolCell.fields(cells[fieldsColumn])
            let notEmitted = fields.contains { $0.note?.contains("not emitted yet") == true }
            let messages = sent.filter { $0["type"] as? String == type }
            if notEmitted {
                #expect(messages.isEmpty, "\(type) is documented as not emitted, but was sent")
                continue
            }
            // A message sent only when a media router instance is lost (`mediaRestart`) needs two Janus instances, one
            // killed: RoutedMediaRestartTests and RoutedFailoverTests receive it; here its fields are checked if sent.
            let failoverOnly = fields.contains { $0.note?.contains("only in a routed failover") == true }
            #expect(!messages.isEmpty || failoverOnly,
                    "6.4 lists \(type), but the scenario never received it (extend everyMessage)")
            let allowed = Set(fields.map(\.name) + ["type"])
            for message in messages {
                let keys = Set(message.keys)
                #expect(keys.isSubset(of: allowed), "\(type) has fields the table does not list: \(keys.subtracting(allowed))")
                for field in fields where !field.optional {
                    #expect(keys.contains(field.name), "\(type) lacks \(field.name): \(message)")
                }
            }
            for field in fields {
                guard let note = field.note else { continue }
                let values = Set(ProtocolCell.backticked(note))
                guard note.contains("|"), !values.isEmpty else { continue }
                if let model = Self.modelValues["\(type).\(field.name)"] {
                    #expect(values == model, "\(type).\(field.name): the table lists \(values.sorted()), the model \(model.sorted())")
                }
                for message in messages {
                    let shown = (message[field.name] as? [String]) ?? [message[field.name] as? String].compactMap { $0 }
                    #expect(Set(shown).isSubset(of: values), "\(type).\(field.name) = \(shown), not one of \(values.sorted())")
                }
            }
        }
        #expect(sentTypes.isSubset(of: documented), "sent but not in 6.4: \(sentTypes.subtracting(documented))")
        #expect(Set(Self.modelValues.keys.map { String($0.prefix { $0 != "." }) }).isSubset(of: documented))
    }

    /// `ConnectionInfo`, `IceServer` and `StreamInfo` as the lines after the 6.4 table define them.
    @Test func nestedObjectsHaveTheDocumentedShape() async throws {
        let document = try ProtocolDocument.load()
        let sent = try await Self.everyMessage()
        let shapes = try ["ConnectionInfo", "IceServer", "StreamInfo"].map { ($0, try Self.shape($0, in: document.text)) }
        var objects: [String: [[String: Any]]] = [:]
        for message in sent {
            for key in ["connection"] { if let value = message[key] as? [String: Any] { objects["ConnectionInfo", default: []].append(value) } }
            for value in (message["connections"] as? [[String: Any]]) ?? [] { objects["ConnectionInfo", default: []].append(value) }
            for key in ["stream"] { if let value = message[key] as? [String: Any] { objects["StreamInfo", default: []].append(value) } }
            for value in (message["streams"] as? [[String: Any]]) ?? [] { objects["StreamInfo", default: []].append(value) }
            for value in (message["iceServers"] as? [[String: Any]]) ?? [] { objects["IceServer", default: []].append(value) }
        }
        for (name, fields) in shapes {
            let found = objects[name] ?? []
            #expect(!found.isEmpty, "no \(name) was sent")
            let allowed = Set(fields.map(\.name))
            for object in found {
                #expect(Set(object.keys).isSubset(of: allowed), "\(name) has undocumented fields: \(Set(object.keys).subtracting(allowed))")
                for field in fields where !field.optional {
                    #expect(object[field.name] != nil, "\(name) lacks \(field.name): \(object)")
                }
            }
        }
    }

    /// The fields of a shape line such as `` `StreamInfo`: `{"id", "name"?, ...}` ``: quoted names, `?` after the
    /// closing quote when optional; nested objects (`{"width","height"}` after a field) are skipped.
    static func shape(_ name: String, in text: String) throws -> [ProtocolCell.Field] {
        guard let start = text.range(of: "`\(name)`: `{") else { throw TestFailure("Protocol.md defines no \(name)") }
        var fields: [ProtocolCell.Field] = []
        var depth = 1
        var parentheses = 0  // notes such as ("camera" | "screen") name values, not fields
        var index = start.upperBound
        while index < text.endIndex, depth > 0 {
            let character = text[index]
            if character == "(" { parentheses += 1 } else if character == ")" { parentheses -= 1 }
            if character == "{" { depth += 1 } else if character == "}" { depth -= 1 } else if character == "\"", depth == 1, parentheses == 0 {
                guard let end = text[text.index(after: index)...].firstIndex(of: "\"") else { break }
                let after = text.index(after: end)
                fields.append(.init(name: String(text[text.index(after: index)..<end]),
                                    optional: after < text.endIndex && text[after] == "?", note: nil))
                index = after
                continue
            }
            index = text.index(after: index)
        }
        return fields
    }

    /// Every message two members of one session receive while going through every request (and a REST signal),
    /// on a server that hands out STUN and TURN servers.
    static func everyMessage() async throws -> [[String: Any]] {
        let archives = try TemporaryDirectory()
        defer { archives.remove() }
        return try await TestServer.with(recorder: FakeArchiveRecorder(), { configuration in
            configuration.iceServers = [ICEServerInfo(urls: ["stun:127.0.0.1:3478"]),
                                        ICEServerInfo(urls: ["turn:127.0.0.1:3478?transport=udp"])]
            configuration.turnSecret = "turn-secret"
            configuration.archiveDirectory = archives.path
        }) { server in
            let session = try await server.session()
            let a = try await ConformanceMember.join(server, session, role: .moderator)
            let b = try await ConformanceMember.join(server, session, role: .publisher)
            func request(_ member: ConformanceMember, _ fields: [String: Any]) async -> ServerMessage? {
                let rid = member.fresh()
                var message = fields
                message["rid"] = rid
                member.send(message)
                return await member.reply(to: rid)
            }
            guard case let .ack(published) = await request(a, ["type": "publish", "name": "cam", "videoDimensions": ["width": 640, "height": 480]]),
                  let streamID = published.streamID
            else { throw TestFailure("publish") }
            guard case let .ack(subscribed) = await request(b, ["type": "subscribe", "streamId": streamID, "subscribeToVideo": false]),
                  let subscriberID = subscribed.subscriberID
            else { throw TestFailure("subscribe") }
            _ = await request(a, ["type": "negotiation", "streamId": streamID, "subscriberId": subscriberID, "kind": "offer", "payload": "v=0"])
            _ = await request(b, ["type": "signal", "signalType": "chat", "data": "hi", "to": a.id])
            var admin = HTTPFields()
            admin[Caller.adminJWTHeader] = server.server.authority.adminToken(now: WallClock.seconds())
            _ = try await server.http(.post, "/v2/project/\(TestServer.apiKey)/session/\(session)/signal", headers: admin,
                                      body: #"{"type":"rest","data":"x"}"#)
            let archive = try await ArchiveClient(server: server).start(session)  // archiveStarted
            _ = try await server.http(.post, "\(ArchiveClient.base)/\(archive)/stop", headers: admin)  // archiveStopped
            _ = await request(a, ["type": "updateStream", "streamId": streamID, "hasVideo": false])
            _ = await request(b, ["type": "forceMute", "streamId": streamID])  // refused: an error
            _ = await request(a, ["type": "forceMute", "streamId": streamID])
            _ = await request(b, ["type": "unsubscribe", "subscriberId": subscriberID])
            _ = await request(b, ["type": "ping", "seq": 1])
            _ = await request(a, ["type": "unpublish", "streamId": streamID])
            _ = await request(b, ["type": "disconnect"])
            await a.sync()
            return (a.received(since: 0) + b.received(since: 0))
        }
    }
}
