import Foundation
import NIOWebSocket
import Testing
import TokKitProtocol
@testable import TokKitServer

/// Docs/Protocol.md, 6.6 (close codes), row by row against a live server: each situation the row lists closes the
/// socket with the row's code. A row without scenarios here, or scenarios for a code the table lacks, fails, and so
/// does a ``CloseCode`` the table lacks. One situation is not played here: a client that does not read (outbox
/// full, 1008) cannot see its close frame; `OutboxTests` and `ServerLimitsTests` cover it, and its code is checked
/// through ``CloseCode/outboxOverflow``.
@Suite(.timeLimit(.minutes(2))) struct CloseCodeConformanceTests {
    /// A situation and the close code the server ended the socket with (nil if it did not close).
    typealias Scenario = (name: String, run: @Sendable () async throws -> Int?)

    static let scenarios: [Int: [Scenario]] = [
        1000: [
            ("disconnect", { try await joined { _, member in member.send(["type": "disconnect"]); return await member.closeCode() } }),
            ("force disconnect", {
                try await TestServer.with { server in
                    let session = try await server.session()
                    let target = try await ConformanceMember.join(server, session, role: .publisher)
                    let moderator = try await ConformanceMember.join(server, session, role: .moderator)
                    moderator.send(["type": "forceDisconnect", "connectionId": target.id])
                    return await target.closeCode()
                }
            }),
        ],
        1001: [
            ("heartbeat timeout", {
                try await TestServer.with({ $0.heartbeatIntervalMs = 100; $0.heartbeatTimeoutMs = 300 }) { server in
                    let silent = try await ConformanceMember.join(server, try await server.session(), role: .publisher)
                    return await silent.closeCode()
                }
            }),
            ("server shutdown", {
                let server = try await TestServer.start()
                let member = try await ConformanceMember.join(server, try await server.session(), role: .publisher)
                await server.server.stop()
                return await member.closeCode()
            }),
        ],
        1002: [
            ("a continuation with no message started", {
                try await joined { _, member in
                    member.client.sendFrame(.continuation, Array(#"{"type":"ping"}"#.utf8))
                    return await member.closeCode()
                }
            }),
        ],
        1007: [
            ("invalid UTF-8", {
                try await joined { _, member in
                    member.client.sendFrame(.text, Array(#"{"type":"ping","x":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8))
                    return await member.closeCode()
                }
            }),
        ],
        1008: [
            ("connect refused", {
                try await TestServer.with { server in
                    let socket = try await ConformanceMember.open(server)
                    socket.send(["type": "connect", "version": 1, "apiKey": TestServer.apiKey, "sessionId": try await server.session(),
                                 "token": "forged"])
                    return await socket.closeCode()
                }
            }),
            ("resume refused", {
                try await TestServer.with { server in
                    let socket = try await ConformanceMember.open(server)
                    socket.send(["type": "resume", "version": 1, "connectionId": "nope", "resumeToken": "nope"])
                    return await socket.closeCode()
                }
            }),
            ("no connect before the deadline", {
                try await TestServer.with({ $0.connectTimeoutMs = 1_000 }) { server in
                    await (try await ConformanceMember.open(server)).closeCode()
                }
            }),
            ("taken over by a resume", {
                try await joined { server, member in
                    let connected = try #require(member.connected)
                    let successor = try await ConformanceMember.open(server)
                    successor.send(["type": "resume", "version": 1, "connectionId": connected.connection.id,
                                    "resumeToken": connected.resumeToken])
                    return await member.closeCode()
                }
            }),
        ],
        1009: [
            ("one frame over the limit", {
                try await joined { _, member in
                    member.client.sendRaw(String(repeating: " ", count: ProtocolLimits.maxFrameBytes + 1))
                    return await member.closeCode()
                }
            }),
            ("fragments over the limit", {
                try await joined { _, member in
                    let half = ProtocolLimits.maxFrameBytes / 2 + 1
                    member.client.sendFrame(.text, fin: false, [UInt8](repeating: 0x20, count: half))
                    member.client.sendFrame(.continuation, fin: true, [UInt8](repeating: 0x20, count: half))
                    return await member.closeCode()
                }
            }),
        ],
    ]

    @Test func everyRowIsHonoured() async throws {
        let table = try ProtocolDocument.load().table(in: "6.6")
        let codeColumn = try table.column("code")
        var documented = Set<Int>()
        for cells in table.rows {
            guard let code = Int(cells[codeColumn]) else {
                Issue.record("6.6 row without a code: \(cells)")
                continue
            }
            documented.insert(code)
            guard let scenarios = Self.scenarios[code], !scenarios.isEmpty else {
                Issue.record("close code \(code) has no scenario")
                continue
            }
            for scenario in scenarios {
                let closed = try await scenario.run()
                #expect(closed == code, "\(scenario.name): closed with \(String(describing: closed)), 6.6 says \(code)")
            }
        }
        #expect(Set(Self.scenarios.keys) == documented, "scenarios for codes 6.6 lacks: \(Set(Self.scenarios.keys).subtracting(documented))")
        // Every close code the server uses is in the table.
        for code in CloseCode.allCases {
            #expect(documented.contains(Int(UInt16(webSocketErrorCode: code.webSocketCode))), "\(code) is not in 6.6")
        }
    }

    /// Runs `body` with a connected publisher.
    static func joined(_ body: (TestServer, ConformanceMember) async throws -> Int?) async throws -> Int? {
        try await TestServer.with { server in
            try await body(server, try await ConformanceMember.join(server, try await server.session(), role: .publisher))
        }
    }
}
