import Foundation
import Hummingbird
import Testing
import TokKitProtocol
@testable import TokKitServer

/// Docs/Protocol.md, 5 (REST API): the tables of 5.2 (quick start), 5.3 (admin calls), 5.4 (session calls) and
/// 5.5 (connections), row by row against a live server over real HTTP. Paths, bodies, defaults, reply fields,
/// allowed roles, statuses and codes are read from the rows; a row this suite cannot map fails.
@Suite(.timeLimit(.minutes(5))) struct RESTConformanceTests {
    // MARK: 5.2

    @Test func quickStartRows() async throws {
        let table = try ProtocolDocument.load().table(in: "5.2")
        let (callColumn, replyColumn) = (try table.column("call"), try table.column("reply"))
        try await TestServer.with({ $0.quickStartBurst = 100 }) { server in
            var keys: Set<String>?
            var quickStartSession: String?
            for cells in table.rows {
                let (method, template) = try Self.call(cells[callColumn])
                #expect(method == "GET", "\(template)")
                let reply = cells[replyColumn]
                if let listed = Self.quoted(reply), !listed.isEmpty { keys = Set(listed) }
                let expectedKeys = try #require(keys, "5.2 \(template): no reply fields")
                let name = "conformance.room_1~"
                let path = template.replacingOccurrences(of: "{name}", with: name)
                    .replacingOccurrences(of: "{sessionId}", with: quickStartSession ?? "")
                let (status, body) = try await server.http(.get, path)
                #expect(status == .ok, "\(path): \(status)")
                let object = try Self.object(body)
                #expect(Set(object.keys) == expectedKeys, "\(path): \(object.keys.sorted())")
                let credentials = try WireCodec.decode(SessionCredentials.self, from: body)
                quickStartSession = quickStartSession ?? credentials.sessionID
                let claims = try server.server.authority.verify(credentials.token, now: WallClock.seconds())
                #expect(claims.role == .publisher && claims.connectionData.isEmpty && claims.sessionID == credentials.sessionID)

                // What the reply cell promises beyond the fields.
                if let range = reply.range(of: "room named "), let room = ProtocolCell.backticked(String(reply[range.upperBound...])).first {
                    let named = try WireCodec.decode(SessionCredentials.self, from: try await server.http(.get, "/room/\(room)").body)
                    #expect(named.sessionID == credentials.sessionID, "\(path) is the room \(room)")
                }
                if reply.contains("reused after") {
                    let again = try WireCodec.decode(SessionCredentials.self, from: try await server.http(.get, path).body)
                    #expect(again.sessionID == credentials.sessionID, "\(path) reused")
                }
                if let range = reply.range(of: "characters of `") {
                    let limit = try #require(ProtocolCell.numbers(String(reply[..<range.lowerBound])).last)
                    let error = try Self.statusAndCode(after: "else", in: reply)
                    #expect(try await server.http(.get, "/room/\(String(repeating: "r", count: limit))").status == .ok)
                    for bad in [String(repeating: "r", count: limit + 1), "a%20b", "%C3%A9"] {
                        let (status, body) = try await server.http(.get, "/room/\(bad)")
                        #expect(status.code == error.status && TestServer.restError(body)?.code.rawValue == error.code, "/room/\(bad.prefix(12))")
                    }
                }
                if reply.contains("for any other session") {
                    let error = try Self.statusAndCode(after: ";", in: reply)
                    let other = try await server.session()
                    let (status, body) = try await server.http(.get, template.replacingOccurrences(of: "{sessionId}", with: other))
                    #expect(status.code == error.status && TestServer.restError(body)?.code.rawValue == error.code, "\(template) for an admin session")
                }
            }
        }
    }

    // MARK: 5.3

    @Test func adminCallRows() async throws {
        let table = try ProtocolDocument.load().table(in: "5.3")
        let (callColumn, bodyColumn, replyColumn) = (try table.column("call"), try table.column("body"), try table.column("reply"))
        #expect(table.rows.count == 2)
        try await TestServer.with { server in
            let session = try await server.session()
            for cells in table.rows {
                let (method, template) = try Self.call(cells[callColumn])
                #expect(method == "POST")
                let path = template.replacingOccurrences(of: "{apiKey}", with: TestServer.apiKey)
                    .replacingOccurrences(of: "{sessionId}", with: session)
                let fields = Self.bodyFields(cells[bodyColumn])
                let replyKeys = Set(Self.quoted(cells[replyColumn]) ?? [])
                let successStatus = try #require(ProtocolCell.numbers(cells[replyColumn]).first)
                #expect(!fields.isEmpty && !replyKeys.isEmpty, "\(template)")

                // No body: every default.
                let before = WallClock.seconds()
                let (status, body) = try await server.http(.post, path, headers: LimitConformanceTests.admin(server))
                let after = WallClock.seconds()
                #expect(Int(status.code) == successStatus, "\(template) without a body: \(status)")
                let reply = try Self.object(body)
                #expect(Set(reply.keys) == replyKeys, "\(template): \(reply.keys.sorted())")
                for field in fields {
                    guard let expected = field.default else {
                        Issue.record("\(template): \(field.name) has no documented default")
                        continue
                    }
                    try checkDefault(field.name, expected, reply: reply, window: before...after, server: server)
                }
                // Every listed value is taken; other values are 400 / 1011.
                for field in fields where !field.values.isEmpty {
                    for value in field.values {
                        let (status, body) = try await server.http(.post, path, headers: LimitConformanceTests.admin(server),
                                                                   body: #"{"\#(field.name)":"\#(value)"}"#)
                        let reply = try Self.object(body)
                        #expect(Int(status.code) == successStatus && reply[field.name] as? String == value,
                                "\(template) with \(field.name) \(value)")
                    }
                    let (status, body) = try await server.http(.post, path, headers: LimitConformanceTests.admin(server),
                                                               body: #"{"\#(field.name)":"no-such-value"}"#)
                    #expect(status == .badRequest && TestServer.restError(body)?.code == .invalidParameter, "\(field.name) no-such-value")
                }
                #expect(try await server.http(.post, path).status == .unauthorized, "\(template) without credentials")
            }
        }
    }

    private func checkDefault(_ name: String, _ expected: String, reply: [String: Any], window: ClosedRange<Int64>,
                              server: TestServer) throws {
        switch name {
        case "mediaMode", "archiveMode", "role":
            #expect(reply[name] as? String == expected, "default \(name): \(String(describing: reply[name]))")
        case "expireTime":
            // "now + 24 h"
            let hours = try #require(ProtocolCell.numbers(expected).first)
            let expiry = try #require(reply["expireTime"] as? Int)
            #expect(window.contains(Int64(expiry) - Int64(hours) * 3_600), "default expireTime \(expiry)")
        case "data":
            let token = try #require(reply["token"] as? String)
            let claims = try server.server.authority.verify(token, now: WallClock.seconds())
            #expect(#""\#(claims.connectionData)""# == expected, "default data: \(claims.connectionData)")
        default:
            Issue.record("no check for the default of \(name) (\(expected))")
        }
    }

    // MARK: 5.4

    /// The WebSocket message each REST session call does the work of (its role rule and code are 6.3's).
    static func webSocketEquivalent(_ method: String, _ template: String) -> String? {
        switch (method, template.split(separator: "/").last ?? "") {
        case ("GET", "stream"): "–"
        case ("POST", "signal"): "signal"
        case ("DELETE", "{connectionId}"): "forceDisconnect"
        case ("POST", "mute"): "forceMute"
        case ("DELETE", "{streamId}"): "forceUnpublish"
        default: nil
        }
    }

    @Test func sessionCallRows() async throws {
        let document = try ProtocolDocument.load()
        let table = try document.table(in: "5.4")
        let messages = Dictionary(uniqueKeysWithValues: try ClientMessageConformanceTests.rows(document).map { ($0.type, $0) })
        let (callColumn, bodyColumn, rolesColumn, replyColumn) = (
            try table.column("call"), try table.column("body"), try table.column("allowed"), try table.column("reply"))
        for cells in table.rows {
            let (method, template) = try Self.call(cells[callColumn])
            guard let equivalent = Self.webSocketEquivalent(method, template) else {
                Issue.record("5.4 \(method) \(template): no mapping to a WebSocket message")
                continue
            }
            let rolesCell = cells[rolesColumn]
            let allowed: Set<Role> = rolesCell == "any" ? Set(Role.allCases)
                : Set(rolesCell.split(separator: ",").compactMap { Role(rawValue: $0.trimmingCharacters(in: .whitespaces)) })
            #expect(!allowed.isEmpty, "\(template): roles \(rolesCell)")
            if equivalent != "–" {
                #expect(messages[equivalent]?.allowedRoles.map(Set.init) == allowed, "\(template) allows \(allowed), 6.3 \(equivalent) says otherwise")
            }
            let forbiddenCode = messages[equivalent]?.elseCode
            let reply = cells[replyColumn]
            let success = try #require(ProtocolCell.numbers(reply).first)
            let body = cells[bodyColumn] == "–" ? nil : "{}"
            let replyKeys = Self.quoted(reply)

            try await TestServer.with { server in
                // Each caller: admin JWT, partner credential, a client token of each role (of the fixture's session).
                let callers: [(name: String, role: Role?)] = [("admin JWT", nil), ("partner", nil)]
                    + Role.allCases.map { ("\($0.rawValue) token", $0) }
                for (index, caller) in callers.enumerated() {
                    let fixture = try await ConformanceFixture.make(server)
                    let headers: HTTPFields
                    switch (index, caller.role) {
                    case (0, _): headers = LimitConformanceTests.admin(server)
                    case (_, nil): headers = [Caller.partnerHeader: "\(TestServer.apiKey):\(TestServer.apiSecret)"]
                    case let (_, role?): headers = [Caller.tokenHeader: try await server.token(fixture.session, role: role)]
                    }
                    let permitted = caller.role.map(allowed.contains) ?? true
                    let path = Self.path(template, fixture)
                    let (status, replyBody) = try await server.http(Self.method(method), path, headers: headers, body: body)
                    if permitted {
                        #expect(Int(status.code) == success, "\(method) \(template) by \(caller.name): \(status)")
                        if let replyKeys, !replyKeys.isEmpty {
                            #expect(Set((try Self.object(replyBody)).keys) == Set(replyKeys), "\(template) reply")
                        }
                    } else {
                        #expect(status == .forbidden && TestServer.restError(replyBody)?.code.rawValue == forbiddenCode,
                                "\(method) \(template) by \(caller.name): \(status) \(String(decoding: replyBody, as: UTF8.self))")
                    }
                }
                // 5.1: credentials, the key in the path, the session; and the row's own unknown-id error.
                let fixture = try await ConformanceFixture.make(server)
                let admin = LimitConformanceTests.admin(server)
                let anonymous = try await server.http(Self.method(method), Self.path(template, fixture), body: body)
                #expect(anonymous.status == .unauthorized && TestServer.restError(anonymous.body)?.code == .authorizationFailure)
                let wrongKey = try await server.http(Self.method(method), Self.path(template, fixture, apiKey: "other-key"), headers: admin, body: body)
                #expect(wrongKey.status == .unauthorized && TestServer.restError(wrongKey.body)?.code == .authorizationFailure)
                let unknownSession = try await server.http(Self.method(method), Self.path(template, fixture, sessionID: "2_none"), headers: admin, body: body)
                #expect(unknownSession.status == .notFound && TestServer.restError(unknownSession.body)?.code == .invalidSessionID)
                if reply.contains("404") {
                    let error = try Self.statusAndCode(after: "(", in: reply.replacingOccurrences(of: "force unpublish;", with: ""))
                    let unknown = try await server.http(Self.method(method), Self.path(template, fixture, unknownLast: true), headers: admin, body: body)
                    #expect(Int(unknown.status.code) == error.status && TestServer.restError(unknown.body)?.code.rawValue == error.code,
                            "\(template) with an unknown id: \(unknown.status)")
                }
            }
        }
    }

    // MARK: 5.5

    @Test func connectionRuleRows() async throws {
        let table = try ProtocolDocument.load().table(in: "5.5")
        let (defaultColumn, brokenColumn) = (try table.column("default"), try table.column("broken"))
        let defaults = Dictionary(uniqueKeysWithValues: Mirror(reflecting: ServerConfiguration()).children.compactMap { child in
            child.label.map { ($0, child.value) }
        })
        #expect(table.rows.count == 6)
        for cells in table.rows {
            let cell = cells[defaultColumn]
            guard let field = ProtocolCell.backticked(cell).first, let value = defaults[field] as? Int else {
                Issue.record("5.5: \(cell) names no integer field of ServerConfiguration")
                continue
            }
            let figure = try #require(ProtocolCell.numbers(cell).first)
            let documented = field.hasSuffix("Ms") && cell.contains(" s ") ? figure * 1_000 : figure
            #expect(documented == value, "\(field): the document says \(cell), the default is \(value)")
            let broken = cells[brokenColumn]
            try await checkRule(field, broken: broken)
        }
    }

    /// Breaks the rule of `field` on a server configured with a small figure and checks the "broken:" cell.
    private func checkRule(_ field: String, broken: String) async throws {
        let silent = broken.contains("without a reply")
        let expected = silent ? nil : try Self.statusAndCode(after: "", in: broken)
        func check(_ reply: RawTCP.Reply, _ what: String) {
            #expect(reply.closed, "\(field) \(what): not closed")
            if silent {
                #expect(reply.bytes.isEmpty, "\(field) \(what): answered \(reply.text.prefix(80))")
            } else {
                #expect(reply.status == expected?.status && TestServer.restError(reply.body)?.code.rawValue == expected?.code,
                        "\(field) \(what): \(reply.text.prefix(200))")
            }
        }
        switch field {
        case "requestHeadTimeoutMs":
            try await TestServer.with({ $0.requestHeadTimeoutMs = 200 }) { server in
                let tcp = try await RawTCP.connect(port: server.port)
                await tcp.send("GET /index.html HTTP/1.1\r\nHost: 127")
                check(await tcp.readUntilClosed(within: .seconds(5)), "half a head")
            }
        case "requestBodyTimeoutMs":
            try await TestServer.with({ $0.requestBodyTimeoutMs = 200 }) { server in
                // Admin credentials, so the route waits for the body (without them it answers 401 at once).
                let jwt = server.server.authority.adminToken(now: WallClock.seconds())
                let tcp = try await RawTCP.connect(port: server.port)
                await tcp.send("POST /session/create HTTP/1.1\r\nHost: 127.0.0.1\r\nX-OPENTOK-AUTH: \(jwt)\r\n"
                                   + "Content-Length: 10\r\n\r\n{}")
                check(await tcp.readUntilClosed(within: .seconds(5)), "2 of 10 body bytes")
            }
        case "maxHeaderBytes":
            try await TestServer.with({ $0.maxHeaderBytes = 1_024 }) { server in
                let within = try await RawTCP.connect(port: server.port)
                await within.send("GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: \(String(repeating: "a", count: 800))\r\n\r\n")
                #expect(await within.readHead(within: .seconds(5)).status == 200, "a head within the limit")
                let tcp = try await RawTCP.connect(port: server.port)
                await tcp.send("GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: \(String(repeating: "a", count: 1_100))\r\n\r\n")
                check(await tcp.readUntilClosed(within: .seconds(5)), "a 1 100-byte header")
            }
        case "maxHeaderCount":
            try await TestServer.with({ $0.maxHeaderCount = 8 }) { server in
                func request(_ fields: Int) -> String {
                    "GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n" + (1..<fields).map { "X-H\($0): v\r\n" }.joined() + "\r\n"
                }
                let within = try await RawTCP.connect(port: server.port)
                await within.send(request(8))
                #expect(await within.readHead(within: .seconds(5)).status == 200, "8 header fields")
                let tcp = try await RawTCP.connect(port: server.port)
                await tcp.send(request(9))
                check(await tcp.readUntilClosed(within: .seconds(5)), "9 header fields")
            }
        case "maxConnections", "maxConnectionsPerAddress":
            try await TestServer.with({ configuration in
                if field == "maxConnections" {
                    configuration.maxConnections = 2
                    configuration.maxConnectionsPerAddress = 2
                } else {
                    configuration.maxConnections = 100
                    configuration.maxConnectionsPerAddress = 2
                }
            }) { server in
                var held: [RawTCP] = []
                for _ in 0..<2 {
                    let tcp = try await RawTCP.connect(port: server.port)
                    await tcp.send("GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    #expect(await tcp.readHead(within: .seconds(5)).status == 200)  // accepted and kept alive
                    held.append(tcp)
                }
                let third = try await RawTCP.connect(port: server.port)
                check(await third.readUntilClosed(within: .seconds(5)), "a third connection")
                _ = held
            }
        default:
            Issue.record("5.5: no check for the rule of \(field)")
        }
    }

    // MARK: Helpers

    /// "`GET /room/{name}`" → ("GET", "/room/{name}").
    static func call(_ cell: String) throws -> (method: String, path: String) {
        let parts = (ProtocolCell.backticked(cell).first ?? "").split(separator: " ")
        guard parts.count == 2 else { throw TestFailure("not a call: \(cell)") }
        return (String(parts[0]), String(parts[1]))
    }

    static func method(_ name: String) -> HTTPRequest.Method {
        switch name {
        case "POST": .post
        case "DELETE": .delete
        default: .get
        }
    }

    /// `template` with the fixture's ids: `{connectionId}` is the peer, `{streamId}` the owner's stream.
    static func path(_ template: String, _ fixture: ConformanceFixture, apiKey: String = TestServer.apiKey,
                     sessionID: String? = nil, unknownLast: Bool = false) -> String {
        var parts = template.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if unknownLast, let index = parts.lastIndex(where: { $0.hasPrefix("{") }) { parts[index] = "no-such-id" }
        return parts.map { part in
            switch part {
            case "{apiKey}": apiKey
            case "{sessionId}": sessionID ?? fixture.session
            case "{connectionId}": fixture.peer.id
            case "{streamId}": fixture.streamID
            default: part
            }
        }.joined(separator: "/")
    }

    /// The quoted names of the first `{...}` of a cell (`{"apiKey", "sessionId"}` → [apiKey, sessionID]); nil without one.
    static func quoted(_ cell: String) -> [String]? {
        guard let open = cell.firstIndex(of: "{"), let close = cell[open...].firstIndex(of: "}") else { return nil }
        return cell[open...close].matches(of: /"(\w+)"/).map { String($0.output.1) }
    }

    /// A request body cell: each quoted field, optional with `?`, its listed values (`"a"|"b"`) and its default
    /// from "(defaults a, b, c)" in field order.
    struct BodyField {
        var name: String
        var values: [String]
        var `default`: String?
    }

    static func bodyFields(_ cell: String) -> [BodyField] {
        var fields = cell.matches(of: /"(\w+)"\?(?::\s*((?:"\w+"\|?)+))?/).map { match in
            BodyField(name: String(match.output.1),
                      values: match.output.2.map { $0.matches(of: /"(\w+)"/).map { String($0.output.1) } } ?? [])
        }
        if let range = cell.range(of: "(defaults ") {
            let defaults = cell[range.upperBound...].prefix { $0 != ")" }.split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) }
            for index in fields.indices where index < defaults.count { fields[index].default = defaults[index] }
        }
        return fields
    }

    /// "404 / 1005" after `marker`: the HTTP status and the protocol code.
    static func statusAndCode(after marker: String, in cell: String) throws -> (status: Int, code: Int) {
        let text = marker.isEmpty ? cell[...] : cell[(cell.range(of: marker)?.upperBound ?? cell.startIndex)...]
        guard let match = text.firstMatch(of: /(\d{3}) \/ (\d{4})/), let status = Int(match.output.1), let code = Int(match.output.2) else {
            throw TestFailure("no \"status / code\" after \(marker) in \(cell)")
        }
        return (status, code)
    }

    static func object(_ body: [UInt8]) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw TestFailure("not a JSON object: \(String(decoding: body, as: UTF8.self))")
        }
        return object
    }
}
