import Foundation
import Testing
import TokKitProtocol
@testable import TokKitServer

/// Docs/Protocol.md, 6.3 (client messages) and 1 (the roles table), row by row, against a live server: the rows are read
/// from the document, so a row the server does not honour fails, and a row (or a type) no example here knows fails
/// too. For each message type:
/// - sent with every field (optional ones not at their defaults) and a `rid`: exactly one reply, an `ack`; every
///   server message the "effect" cell names reaches someone; each optional field given shows in those messages;
/// - sent with the required fields only: accepted, and each documented default shows in those messages;
/// - each required field left out: `error` 1011 naming it, with the `rid`;
/// - the role cell: each role it lists succeeds and every other gets the "else" code; a relation (owner, the
///   subscribing connection, either end) refuses a connection outside it with that code, and an unknown id with
///   the "unknown" code.
@Suite(.timeLimit(.minutes(10))) struct ClientMessageConformanceTests {
    /// One row of the 6.3 table.
    struct Row: Sendable {
        let type: String
        let fields: [ProtocolCell.Field]
        let role: String
        let effect: String

        var required: [ProtocolCell.Field] { fields.filter { !$0.optional } }
        var optional: [ProtocolCell.Field] { fields.filter(\.optional) }

        /// The roles the cell lists before its parenthesis, or nil when it names none ("–", or a relation).
        var allowedRoles: [Role]? {
            let names = role.prefix { $0 != "(" }.split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`")) }
            let roles = names.compactMap(Role.init(rawValue:))
            return roles.isEmpty ? nil : roles
        }
        /// The code after "else".
        var elseCode: Int? { code(after: "else ") }
        /// The code after "unknown".
        var unknownCode: Int? { code(after: "unknown ") }

        private func code(after word: String) -> Int? {
            guard let range = role.range(of: word) else { return nil }
            return ProtocolCell.errorCodes(String(role[range.upperBound...])).first
        }
    }

    static func rows(_ document: ProtocolDocument) throws -> [Row] {
        let table = try document.table(in: "6.3")
        let (type, fields, role, effect) = (try table.column("type"), try table.column("fields"),
                                            try table.column("role"), try table.column("effect"))
        return table.rows.map { cells in
            Row(type: ProtocolCell.backticked(cells[type]).first ?? cells[type],
                fields: ProtocolCell.fields(cells[fields]), role: cells[role], effect: cells[effect])
        }
    }

    /// The server message types of 6.4, which the effect cells name.
    static func serverTypes(_ document: ProtocolDocument) throws -> Set<String> {
        Set(try document.table(in: "6.4").cells("type").compactMap { ProtocolCell.backticked($0).first })
    }

    /// Every client message type this build decodes is a row of 6.3, and every row is one it decodes.
    @Test func theTableListsExactlyTheTypesTheServerReads() throws {
        let documented = Set(try Self.rows(try ProtocolDocument.load()).map(\.type))
        let decoded = Set(Self.everyClientMessage.map(\.type))
        #expect(documented == decoded, "only documented: \(documented.subtracting(decoded)), only decoded: \(decoded.subtracting(documented))")
        for type in documented {
            // A type the server does not read is refused as "unknown message type", not for a missing field.
            guard case let .failure(failure) = WireCodec.decodeRequest(Array(#"{"type":"\#(type)"}"#.utf8)) else { continue }
            #expect(!failure.error.message.contains("unknown message type"), "\(type): \(failure.error.message)")
        }
    }

    /// One value of each ``ClientMessage`` case (the switch makes a new case a compile error here).
    static let everyClientMessage: [ClientMessage] = {
        let all: [ClientMessage] = [
            .connect(.init(apiKey: "k", sessionID: "s", token: "t")), .resume(.init(connectionID: "c", resumeToken: "r")),
            .disconnect, .ping(.init()), .publish(.init()), .unpublish(.init(streamID: "s")),
            .updateStream(.init(streamID: "s")), .subscribe(.init(streamID: "s")), .unsubscribe(.init(subscriberID: "s")),
            .subscriberPreferences(.init(subscriberID: "s")),
            .negotiation(.init(streamID: "s", subscriberID: "s", kind: .offer, payload: "")), .signal(.init()),
            .forceDisconnect(.init(connectionID: "c")), .forceUnpublish(.init(streamID: "s")),
            .forceMute(.init(streamID: "s")),
        ]
        for message in all {
            switch message {
            case .connect, .resume, .disconnect, .ping, .publish, .unpublish, .updateStream, .subscribe, .unsubscribe,
                 .subscriberPreferences, .negotiation, .signal, .forceDisconnect, .forceUnpublish, .forceMute:
                break
            }
        }
        return all
    }()

    @Test func everyRowIsHonoured() async throws {
        let document = try ProtocolDocument.load()
        let rows = try Self.rows(document)
        let serverTypes = try Self.serverTypes(document)
        #expect(rows.count >= 14, "6.3 lost rows: \(rows.map(\.type))")
        for row in rows {
            try await TestServer.with { server in
                try await checkEverything(row, serverTypes: serverTypes, on: server)
                try await checkRequiredOnly(row, on: server)
                try await checkEachRequiredField(row, on: server)
                try await checkRoles(row, on: server)
            }
        }
    }

    /// Section 1's role table says what 6.3's role cells say (which `everyRowIsHonoured` checks live).
    @Test func theRoleTableAgreesWithTheMessageTable() throws {
        let document = try ProtocolDocument.load()
        let rows = Dictionary(uniqueKeysWithValues: try Self.rows(document).map { ($0.type, $0) })
        let table = try document.table(in: "Roles")
        let roleColumn = try table.column("role")
        #expect(Set(table.rows.compactMap { ProtocolCell.backticked($0[roleColumn]).first }) == Set(Role.allCases.map(\.rawValue)))
        for (index, name) in table.header.enumerated() where index != roleColumn {
            let types = ProtocolCell.backticked(name).isEmpty ? [name] : ProtocolCell.backticked(name)
            let messageTypes = name.contains("/") ? name.split(separator: "/").map { $0.trimmingCharacters(in: .whitespaces) } : types
            for type in messageTypes {
                guard let row = rows[type], let allowed = row.allowedRoles else {
                    Issue.record("role table column \(name): 6.3 has no role list for \(type)")
                    continue
                }
                for cells in table.rows {
                    guard let role = ProtocolCell.backticked(cells[roleColumn]).first.flatMap(Role.init(rawValue:)) else { continue }
                    let yes = cells[index].lowercased() == "yes"
                    #expect(yes == allowed.contains(role), "\(role.rawValue) \(type): section 1 says \(cells[index]), 6.3 says \(row.role)")
                }
            }
        }
    }

    // MARK: Checks

    /// All fields, with a rid: exactly one ack; the effect's messages arrive; the optional values given show.
    private func checkEverything(_ row: Row, serverTypes: Set<String>, on server: TestServer) async throws {
        let fixture = try await ConformanceFixture.make(server)
        guard case let (sender, fields)? = try await fixture.example(row.type) else {
            Issue.record("6.3 row \(row.type): no example message for it in ConformanceFixture")
            return
        }
        let documented = Set(row.fields.map(\.name))
        #expect(Set(fields.keys) == documented, "\(row.type): the example's fields \(fields.keys.sorted()) are not the row's \(documented.sorted())")
        let outcome = await send(row.type, fields, from: sender, watching: fixture.members)
        #expect(outcome.reply.count == 1 && outcome.reply.first?["type"] as? String == "ack",
                "\(row.type) with a rid: replies \(outcome.reply)")
        let effectTypes = Set(ProtocolCell.backticked(row.effect)).intersection(serverTypes)
        for type in effectTypes {
            #expect(outcome.seen.contains { $0["type"] as? String == type }, "\(row.type): no \(type) reached anyone (effect: \(row.effect))")
        }
        if row.effect.contains("before `connect`") {
            let early = try await ConformanceMember.open(server)
            let before = await send(row.type, fields, from: early, watching: [])
            #expect(before.reply.count == 1 && before.reply.first?["type"] as? String == "ack", "\(row.type) before connect: \(before.reply)")
            for type in effectTypes {
                #expect(before.seen.contains { $0["type"] as? String == type }, "\(row.type) before connect: no \(type)")
            }
        }
        for field in row.optional {
            guard let given = fields[field.name] else { continue }
            #expect(values(of: field.name, in: outcome.seen, types: effectTypes).contains { same($0, given) },
                    "\(row.type): \(field.name) = \(given) does not show in the effect messages")
        }
    }

    /// Required fields only: accepted, and every default of the row shows in the effect's messages.
    private func checkRequiredOnly(_ row: Row, on server: TestServer) async throws {
        let fixture = try await ConformanceFixture.make(server)
        guard case let (sender, all)? = try await fixture.example(row.type) else { return }
        let fields = all.filter { key, _ in row.required.contains { $0.name == key } }
        let outcome = await send(row.type, fields, from: sender, watching: fixture.members)
        #expect(outcome.reply.count == 1 && outcome.reply.first?["type"] as? String == "ack",
                "\(row.type) without its optional fields: \(outcome.reply)")
        let effectTypes = Set(ProtocolCell.backticked(row.effect))
        for field in row.optional {
            guard let literal = field.defaultJSON else { continue }
            let expected = try JSONSerialization.jsonObject(with: Data(literal.utf8), options: .fragmentsAllowed)
            let shown = values(of: field.name, in: outcome.seen, types: effectTypes)
            #expect(!shown.isEmpty && shown.allSatisfy { same($0, expected) },
                    "\(row.type): \(field.name) left out should be \(literal), the server says \(shown)")
        }
    }

    /// Each required field left out: error 1011 naming it, with the rid; nothing else happens to the socket.
    private func checkEachRequiredField(_ row: Row, on server: TestServer) async throws {
        let fixture = try await ConformanceFixture.make(server)
        for field in row.required {
            guard case (let sender, var fields)? = try await fixture.example(row.type) else { return }
            fields[field.name] = nil
            let outcome = await send(row.type, fields, from: sender, watching: [])
            let error = outcome.reply.first
            #expect(outcome.reply.count == 1 && error?["type"] as? String == "error"
                        && error?["code"] as? Int == ErrorCode.invalidParameter.rawValue
                        && (error?["message"] as? String)?.contains(field.name) == true,
                    "\(row.type) without \(field.name): \(outcome.reply)")
        }
    }

    /// The role cell: listed roles succeed, the others get the else code; relations refuse outsiders and unknown ids.
    private func checkRoles(_ row: Row, on server: TestServer) async throws {
        if let allowed = row.allowedRoles {
            guard let code = row.elseCode else {
                Issue.record("\(row.type): the role cell lists roles but no else code: \(row.role)")
                return
            }
            for role in Role.allCases {
                let fixture = try await ConformanceFixture.make(server)
                guard case let (_, fields)? = try await fixture.example(row.type) else { return }
                let member = try await ConformanceMember.join(server, fixture.session, role: role)
                let outcome = await send(row.type, fields, from: member, watching: [])
                let reply = outcome.reply.first
                if allowed.contains(role) {
                    #expect(reply?["type"] as? String == "ack", "\(row.type) by \(role.rawValue): \(outcome.reply)")
                } else {
                    #expect(reply?["code"] as? Int == code, "\(row.type) by \(role.rawValue) should be \(code): \(outcome.reply)")
                }
            }
        } else if row.role != "–" {
            // A relation: the bystander (a moderator, in no stream and no subscription) is outside it.
            let fixture = try await ConformanceFixture.make(server)
            guard case let (_, fields)? = try await fixture.example(row.type) else { return }
            guard let code = row.elseCode else {
                Issue.record("\(row.type): the role cell names no else code: \(row.role)")
                return
            }
            let outsider = await send(row.type, fields, from: fixture.bystander, watching: [])
            #expect(outsider.reply.first?["code"] as? Int == code, "\(row.type) from outside \(row.role): \(outsider.reply)")
            if let unknown = row.unknownCode {
                var bogus = fields
                for key in fields.keys where key.hasSuffix("Id") { bogus[key] = "no-such-id" }
                let sender = try await fixture.example(row.type)?.sender ?? fixture.owner
                let outcome = await send(row.type, bogus, from: sender, watching: [])
                #expect(outcome.reply.first?["code"] as? Int == unknown, "\(row.type) with unknown ids: \(outcome.reply)")
            }
        }
    }

    // MARK: Helpers

    /// Sends `type` with `fields` and a fresh rid from `sender`, then syncs everyone: the sender's replies for that
    /// rid, and every message the sender and `watching` received meanwhile.
    private func send(_ type: String, _ fields: [String: Any], from sender: ConformanceMember,
                      watching members: [ConformanceMember]) async -> (reply: [[String: Any]], seen: [[String: Any]])
    {
        let everyone = [sender] + members.filter { $0 !== sender }
        let marks = everyone.map(\.mark)
        let rid = sender.fresh()
        var message = fields
        message["type"] = type
        message["rid"] = rid
        sender.send(message)
        _ = await sender.reply(to: rid)
        for member in everyone { await member.sync() }  // false for a socket the request closed: nothing more comes
        let received = zip(everyone, marks).map { $0.received(since: $1) }
        return (replies(to: rid, in: received[0]), received.flatMap { $0 })
    }

    /// The values of `key` in `messages` of `types` (other than `ack`), at the top level or one object down.
    private func values(of key: String, in messages: [[String: Any]], types: Set<String>) -> [Any] {
        messages.filter { types.contains($0["type"] as? String ?? "") && $0["type"] as? String != "ack" }.flatMap { message in
            [message[key]].compactMap { $0 } + message.values.compactMap { ($0 as? [String: Any])?[key] }
        }
    }

    /// JSON equality of two decoded values.
    private func same(_ a: Any, _ b: Any) -> Bool {
        let encode = { (value: Any) in try? JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys]) }
        return encode(a) != nil && encode(a) == encode(b)
    }
}
