import Foundation
import Hummingbird
import Testing
import TokKitProtocol
@testable import TokKitServer

/// Docs/Protocol.md, 3 (error codes), row by row: each row's name is the ``ErrorCode`` constant of that value, and
/// a live server answers the situation the row describes with exactly that code. A row without a scenario here,
/// or a scenario without a row, fails.
@Suite(.timeLimit(.minutes(3))) struct ErrorCodeConformanceTests {
    /// Every ``ErrorCode`` constant by its name in the table.
    static let constants: [String: ErrorCode] = [
        "authorizationFailure": .authorizationFailure, "invalidSessionId": .invalidSessionID,
        "connectFailed": .connectFailed, "notConnected": .notConnected, "invalidParameter": .invalidParameter,
        "illegalState": .illegalState, "resumeFailed": .resumeFailed, "incompatibleVersion": .incompatibleVersion,
        "subscriberNotFound": .subscriberNotFound, "signalDataTooLong": .signalDataTooLong,
        "limitReached": .limitReached, "invalidSignalType": .invalidSignalType, "unableToPublish": .unableToPublish,
        "unableToSignal": .unableToSignal, "unableToForceDisconnect": .unableToForceDisconnect,
        "unableToForceUnpublish": .unableToForceUnpublish, "unableToForceMute": .unableToForceMute,
        "unableToSubscribe": .unableToSubscribe, "streamNotFound": .streamNotFound, "internalError": .internalError,
        "unableToArchive": .unableToArchive, "archiveNotFound": .archiveNotFound,
        "archivingUnavailable": .archivingUnavailable,
        "mediaRouterFailed": .mediaRouterFailed,
    ]

    /// What the server answers in each row's situation (the code it sent, or nil if it sent none).
    typealias Scenario = @Sendable () async throws -> Int?

    static let scenarios: [Int: Scenario] = [
        1004: { try await connect { $0.token = "not.a.token" } },
        1005: { try await connect { $0.sessionID = "2_unknown" } },
        1006: {
            try await TestServer.with({ $0.connectTimeoutMs = 1_000 }) { server in
                let silent = try await ConformanceMember.open(server)  // sends nothing
                guard case let .error(error) = await silent.client.nextMessage() else { return nil }
                return error.code.rawValue
            }
        },
        1010: { try await early(["type": "publish"]) },
        1011: { try await member(.publisher) { server, member in try await request(member, ["type": "publish", "videoType": "hologram"]) } },
        1015: {
            try await member(.publisher) { server, member in
                try await request(member, ["type": "connect", "version": 1, "apiKey": TestServer.apiKey,
                                           "sessionId": "2_x", "token": "t"])
            }
        },
        1023: { try await early(["type": "resume", "version": 1, "connectionId": "nope", "resumeToken": "nope"]) },
        1024: { try await connect { $0.version = ProtocolVersion.supported.upperBound + 1 } },
        1112: { try await member(.publisher) { _, member in try await request(member, ["type": "unsubscribe", "subscriberId": "nope"]) } },
        1413: {
            try await member(.publisher) { _, member in
                try await request(member, ["type": "signal", "data": String(repeating: "x", count: ProtocolLimits.maxSignalDataBytes + 1)])
            }
        },
        1430: {
            try await TestServer.with({ $0.maxConnectionsPerSession = 1 }) { server in
                let session = try await server.session()
                _ = try await server.join(session)
                let second = try await server.open(session, token: try await server.token(session))
                guard case let .error(error) = await second.nextMessage() else { return nil }
                return error.code.rawValue
            }
        },
        1461: { try await member(.publisher) { _, member in try await request(member, ["type": "signal", "signalType": "bad type!"]) } },
        1500: { try await member(.subscriber) { _, member in try await request(member, ["type": "publish"]) } },
        1520: { try await member(.subscriber) { _, member in try await request(member, ["type": "signal"]) } },
        1530: { try await member(.publisher) { _, member in try await request(member, ["type": "forceDisconnect", "connectionId": member.id]) } },
        1535: { try await member(.publisher) { _, member in try await request(member, ["type": "forceUnpublish", "streamId": "nope"]) } },
        1540: { try await member(.publisher) { _, member in try await request(member, ["type": "forceMute", "streamId": "nope"]) } },
        1550: {
            try await archives { api, session in
                try await api.call(.post, ArchiveClient.base, headers: try await api.token(session, .publisher),
                                   body: #"{"sessionId":"\#(session)"}"#).code
            }
        },
        1605: { try await archives { api, _ in try await api.call(.get, "\(ArchiveClient.base)/\(ArchiveID.make())").code } },
        1620: {
            try await TestServer.with { server in
                try await ArchiveClient(server: server).call(
                    .post, ArchiveClient.base, body: #"{"sessionId":"\#(try await server.session())"}"#).code
            }
        },
        1600: { try await member(.publisherOnly) { _, member in try await request(member, ["type": "subscribe", "streamId": "nope"]) } },
        1604: { try await member(.publisher) { _, member in try await request(member, ["type": "subscribe", "streamId": "nope"]) } },
        // A routed session whose media router cannot be reached (nothing listens on port 9): the publisher's offer
        // on its upstream gets 1570 naming the upstream, without rid.
        1570: {
            try await TestServer.with({ $0.janus = [RoutedMediaConfiguration(url: "ws://127.0.0.1:9", requestTimeoutMs: 2_000)] }) { server in
                let session = try await server.server.createSession(mediaMode: .routed).sessionID
                let member = try await ConformanceMember.join(server, session, role: .publisher)
                let rid = member.fresh()
                member.send(["type": "publish", "rid": rid])
                guard case let .ack(ack)? = await member.reply(to: rid), let streamID = ack.streamID,
                      let upstream = ack.subscriberID
                else { return nil }
                member.send(["type": "negotiation", "streamId": streamID, "subscriberId": upstream, "kind": "offer",
                             "payload": "v=0\r\n"])
                for _ in 0..<100 {
                    switch await member.client.next() {
                    case let .message(.error(error))? where error.rid == nil && error.subscriberID == upstream:
                        return error.code.rawValue
                    case .message?, .undecodable?: continue
                    case .closed?, nil: return nil
                    }
                }
                return nil
            }
        },
        // No request can make the server fail; what the row promises is the code, sent on REST with status 500.
        2000: {
            let failure = RESTFailure(ProtocolError(.internalError, "unexpected"))
            return failure.status == .internalServerError ? failure.error.code.rawValue : nil
        },
    ]

    @Test func everyRowIsTheNamedConstantAndWhatTheServerAnswers() async throws {
        let table = try ProtocolDocument.load().table(in: "3")
        let (codeColumn, nameColumn) = (try table.column("code"), try table.column("name"))
        var documented = Set<Int>()
        for cells in table.rows {
            guard let code = Int(cells[codeColumn]) else {
                Issue.record("row without a numeric code: \(cells)")
                continue
            }
            documented.insert(code)
            let name = String(cells[nameColumn].prefix { !$0.isWhitespace })
            #expect(Self.constants[name]?.rawValue == code, "\(code) \(name): ErrorCode.\(name) is \(String(describing: Self.constants[name]))")
            guard let scenario = Self.scenarios[code] else {
                Issue.record("error code \(code) (\(name)) has no scenario")
                continue
            }
            let answered = try await scenario()
            #expect(answered == code, "\(code) \(name): the server answered \(String(describing: answered))")
        }
        #expect(Set(Self.scenarios.keys) == documented, "scenarios without a row: \(Set(Self.scenarios.keys).subtracting(documented))")
        #expect(Set(Self.constants.values.map(\.rawValue)) == documented,
                "constants without a row: \(Set(Self.constants.values.map(\.rawValue)).subtracting(documented))")
    }

    // MARK: Scenario helpers

    struct ConnectFields {
        var version = ProtocolVersion.current
        var sessionID: String
        var token: String
    }

    /// A `connect` with a valid session and token, changed by `change`: the code of the `error` it gets.
    static func connect(_ change: @Sendable (inout ConnectFields) -> Void) async throws -> Int? {
        try await TestServer.with { server in
            let session = try await server.session()
            var fields = ConnectFields(sessionID: session, token: try await server.token(session))
            change(&fields)
            let socket = try await ConformanceMember.open(server)
            return try await request(socket, ["type": "connect", "version": fields.version, "apiKey": TestServer.apiKey,
                                              "sessionId": fields.sessionID, "token": fields.token])
        }
    }

    /// Runs `body` with a server that archives (fake recorder) and one session.
    static func archives(_ body: (ArchiveClient, String) async throws -> Int?) async throws -> Int? {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        return try await TestServer.with(recorder: FakeArchiveRecorder(), { $0.archiveDirectory = directory.path }) { server in
            try await body(ArchiveClient(server: server), try await server.session())
        }
    }

    /// A request on a socket that has not connected.
    static func early(_ fields: [String: Any]) async throws -> Int? {
        try await TestServer.with { server in try await request(try await ConformanceMember.open(server), fields) }
    }

    /// Runs `body` with a connected member of `role`.
    static func member(_ role: Role, _ body: (TestServer, ConformanceMember) async throws -> Int?) async throws -> Int? {
        try await TestServer.with { server in
            try await body(server, try await ConformanceMember.join(server, try await server.session(), role: role))
        }
    }

    /// Sends `fields` with a rid; the code of the `error` for it (nil for an `ack` or nothing).
    static func request(_ member: ConformanceMember, _ fields: [String: Any]) async throws -> Int? {
        let rid = member.fresh()
        var message = fields
        message["rid"] = rid
        member.send(message)
        guard case let .error(error) = await member.reply(to: rid) else { return nil }
        return error.code.rawValue
    }
}
