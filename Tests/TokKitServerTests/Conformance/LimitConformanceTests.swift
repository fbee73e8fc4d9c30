import Foundation
import Hummingbird
import Testing
import TokKitProtocol
@testable import TokKitServer

/// Docs/Protocol.md, 2 (limits), row by row against a live server: the figures are read from the row, the value at
/// the limit is accepted and the first one past it gets the row's error. A row without a check here fails.
@Suite(.timeLimit(.minutes(3))) struct LimitConformanceTests {
    /// A row: what is limited, the limit cell, the error cell.
    struct Row: Sendable {
        let what: String
        let limit: String
        let error: String
        var numbers: [Int] { ProtocolCell.numbers(limit) }
        var codes: [Int] { ProtocolCell.errorCodes(error) }
    }

    typealias Check = @Sendable (Row, TestServer) async throws -> Void

    /// The check of each row, by the start of its "what" cell.
    static let checks: [String: Check] = [
        "WebSocket message": { row, server in
            let limit = try #require(row.numbers.first)
            let member = try await ConformanceMember.join(server, try await server.session(), role: .publisher)
            let ping = #"{"type":"ping","seq":1}"#
            member.client.sendRaw(ping + String(repeating: " ", count: limit - ping.utf8.count))
            #expect(await member.client.nextMessage() == .pong(.init(seq: 1)), "\(limit) bytes")
            member.client.sendRaw(ping + String(repeating: " ", count: limit + 1 - ping.utf8.count))
            #expect(await member.closeCode() == row.codes.first, "\(limit + 1) bytes: \(row.error)")
        },
        "signal type": { row, server in
            let limit = try #require(row.numbers.dropFirst().first)  // "0–128 characters, each of `A-Z a-z 0-9 - _ ~`"
            for (type, accepted) in [("", true), (String(repeating: "a", count: limit), true),
                                     (String(repeating: "a", count: limit + 1), false), ("A-z_0~9", true), ("a b", false), ("é", false)] {
                let code = try await ws(server, ["type": "signal", "signalType": type])
                #expect(code == (accepted ? nil : row.codes.first), "signal type \(type.prefix(10))… (\(type.count))")
            }
        },
        "signal data": { row, server in
            let limit = try #require(row.numbers.first)
            #expect(try await ws(server, ["type": "signal", "data": String(repeating: "x", count: limit)]) == nil)
            #expect(try await ws(server, ["type": "signal", "data": String(repeating: "é", count: limit / 2)]) == nil)
            #expect(try await ws(server, ["type": "signal", "data": String(repeating: "x", count: limit + 1)]) == row.codes.first)
        },
        "connection data": { row, server in
            let limit = try #require(row.numbers.first)
            let session = try await server.session()
            for (count, accepted) in [(limit, true), (limit + 1, false)] {
                let body = #"{"data":"\#(String(repeating: "é", count: count))"}"#
                let (status, reply) = try await server.http(.post, "/v2/project/\(TestServer.apiKey)/session/\(session)/token",
                                                            headers: admin(server), body: body)
                if accepted {
                    #expect(status == .ok, "\(count) characters of connection data")
                } else {
                    #expect(status == .badRequest && TestServer.restError(reply)?.code.rawValue == row.codes.first, "\(count)")
                }
            }
        },
        "stream name": { row, server in
            let limit = try #require(row.numbers.first)
            #expect(try await ws(server, ["type": "publish", "name": String(repeating: "é", count: limit)]) == nil)
            #expect(try await ws(server, ["type": "publish", "name": String(repeating: "a", count: limit + 1)]) == row.codes.first)
        },
        "negotiation payload": { row, server in
            let limit = try #require(row.numbers.first)
            let session = try await server.session()
            let owner = try await ConformanceMember.join(server, session, role: .publisher)
            let publish = owner.fresh()
            owner.send(["type": "publish", "rid": publish])
            guard case let .ack(published) = await owner.reply(to: publish), let streamID = published.streamID else {
                throw TestFailure("publish")
            }
            let subscribe = owner.fresh()
            owner.send(["type": "subscribe", "rid": subscribe, "streamId": streamID])
            guard case let .ack(subscribed) = await owner.reply(to: subscribe), let subscriberID = subscribed.subscriberID else {
                throw TestFailure("subscribe")
            }
            for (size, code) in [(limit, nil as Int?), (limit + 1, row.codes.first)] {
                let answered = try await ErrorCodeConformanceTests.request(
                    owner, ["type": "negotiation", "streamId": streamID, "subscriberId": subscriberID, "kind": "offer",
                            "payload": String(repeating: "v", count: size)])
                #expect(answered == code, "payload of \(size) bytes")
            }
        },
        "video dimensions": { row, server in
            let (low, high) = (try #require(row.numbers.first), try #require(row.numbers.last))
            for (width, height, accepted) in [(low, high, true), (high, low, true), (low - 1, high, false), (low, high + 1, false),
                                              (high + 1, low, false), (-1, low, false)] {
                let code = try await ws(server, ["type": "publish", "videoDimensions": ["width": width, "height": height]])
                #expect(code == (accepted ? nil : row.codes.first), "\(width)x\(height)")
            }
        },
        "announced frame rate": { row, server in
            // "a finite number, 1–120 frames per second"
            let (low, high) = (Double(try #require(row.numbers.first)), Double(try #require(row.numbers.last)))
            for (rate, accepted) in [(low, true), (high, true), (29.97, true), (low - 0.01, false), (high + 0.01, false),
                                     (0, false), (-high, false)] {
                let code = try await ws(server, ["type": "publish", "frameRate": rate])
                #expect(code == (accepted ? nil : row.codes.first), "frameRate \(rate)")
            }
        },
        "token lifetime": { row, server in
            // "default 24 h, at most 30 days"
            let (hours, days) = (try #require(row.numbers.first), try #require(row.numbers.last))
            let session = try await server.session()
            let path = "/v2/project/\(TestServer.apiKey)/session/\(session)/token"
            let before = WallClock.seconds()
            let (status, body) = try await server.http(.post, path, headers: admin(server))
            let after = WallClock.seconds()
            let issued = try WireCodec.decode(IssuedToken.self, from: body)
            #expect(status == .ok && (before...after).contains(issued.expireTime - Int64(hours) * 3_600), "default lifetime: \(issued)")
            let now = WallClock.seconds()
            let longest = now + Int64(days) * 86_400
            #expect(try await server.http(.post, path, headers: admin(server), body: #"{"expireTime":\#(longest)}"#).status == .ok)
            let tooLong = try await server.http(.post, path, headers: admin(server), body: #"{"expireTime":\#(longest + 600)}"#)
            #expect(tooLong.status == .badRequest && TestServer.restError(tooLong.body)?.code.rawValue == row.codes.first)
            for extreme in [Int64.max, Int64.min, 0, -1] {
                let reply = try await server.http(.post, path, headers: admin(server), body: #"{"expireTime":\#(extreme)}"#)
                #expect(reply.status == .badRequest && TestServer.restError(reply.body)?.code.rawValue == row.codes.first, "\(extreme)")
            }
        },
        "token length": { row, server in
            let limit = try #require(row.numbers.first)
            let session = try await server.session()
            let authority = server.server.authority
            // Tokens around the limit: the nonce pads the claims (the other claims have limits of their own).
            var below: String?
            var above: String?
            for padding in 2_000..<3_200 {
                let token = authority.sign(TokenClaims(
                    apiKey: TestServer.apiKey, sessionID: session, role: .publisher, issuedAt: WallClock.seconds(),
                    expiresAt: WallClock.seconds() + 3_600, nonce: String(repeating: "n", count: padding), connectionData: ""))
                if token.utf8.count <= limit { below = token } else if above == nil { above = token }
            }
            let (accepted, refused) = (try #require(below), try #require(above))
            #expect(accepted.utf8.count > limit - 3 && refused.utf8.count < limit + 3)
            for (token, code) in [(accepted, nil as Int?), (refused, row.codes.first)] {
                let socket = try await ConformanceMember.open(server)
                let answered = try await ErrorCodeConformanceTests.request(
                    socket, ["type": "connect", "version": 1, "apiKey": TestServer.apiKey, "sessionId": session, "token": token])
                #expect(answered == code, "a token of \(token.utf8.count) bytes")
            }
        },
        "HTTP request head": { row, server in
            // "16 384 bytes, 100 fields (server config, 5.5)": the defaults; 5.5 checks each with its own figure.
            let configuration = ServerConfiguration()
            #expect(row.numbers.prefix(2) == [configuration.maxHeaderBytes, configuration.maxHeaderCount], "\(row.limit)")
            #expect(row.error.contains("400") && row.error.contains("closed"))
        },
    ]

    @Test func everyRowIsHonoured() async throws {
        let table = try ProtocolDocument.load().table(in: "2")
        let (what, limit, error) = (try table.column("what"), try table.column("limit"), try table.column("error"))
        #expect(table.rows.count >= 10)
        for cells in table.rows {
            let row = Row(what: cells[what], limit: cells[limit], error: cells[error])
            guard let check = Self.checks.first(where: { row.what.hasPrefix($0.key) })?.value else {
                Issue.record("limit \"\(row.what)\" has no check")
                continue
            }
            try await TestServer.with { server in try await check(row, server) }
        }
    }

    // MARK: Helpers

    /// A request from a fresh publisher: the code of the error it gets, nil for an ack.
    static func ws(_ server: TestServer, _ fields: [String: Any]) async throws -> Int? {
        let member = try await ConformanceMember.join(server, try await server.session(), role: .publisher)
        return try await ErrorCodeConformanceTests.request(member, fields)
    }

    static func admin(_ server: TestServer) -> HTTPFields {
        var fields = HTTPFields()
        fields[Caller.adminJWTHeader] = server.server.authority.adminToken(now: WallClock.seconds())
        return fields
    }
}
