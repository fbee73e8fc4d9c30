import NIOWebSocket
import Testing
import TokKitProtocol
@testable import TokKitServer

/// Socket-level robustness: malformed messages keep the socket, oversized frames close only that socket.
@Suite(.timeLimit(.minutes(2))) struct SignalingEndpointTests {
    @Test func malformedMessagesGetAnErrorAndTheSocketSurvives() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let (client, _) = try await server.join(session)
            let garbage = ["not json", "{", "[]", "null", #"{"type":"nope","rid":7}"#, #"{"type":"signal","rid":8,"data":5}"#,
                           #"{"rid":9}"#, String(repeating: "[", count: 10_000)]
            for text in garbage {
                client.sendRaw(text)
                guard case let .error(error) = await client.nextMessage() else { throw TestFailure("no error for \(text.prefix(20))") }
                #expect(error.code == .invalidParameter, "\(text.prefix(20))")
                if text.contains(#""rid":7"#) { #expect(error.rid == 7) }
            }
            client.send(.ping(.init(seq: 1)))
            #expect(await client.nextMessage() == .pong(.init(seq: 1)))
        }
    }

    @Test func anOversizedFrameClosesOnlyThatSocket() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let (big, bigConnected) = try await server.join(session)
            let (bystander, _) = try await server.join(session)
            _ = await big.nextMessage()  // connectionCreated bystander
            big.sendRaw(String(repeating: "x", count: ProtocolLimits.maxFrameBytes + 1))
            let close = await big.waitForClose()
            #expect(close.closed && close.code == .messageTooLarge, "\(String(describing: close.code))")
            // The bystander keeps working (and, after the resume grace, learns the other one is gone).
            bystander.send(.ping(.init(seq: 2)))
            #expect(await bystander.nextMessage() == .pong(.init(seq: 2)))
            let stats = await server.stats { $0.awaitingResume == 1 }
            #expect(stats.awaitingResume == 1 && stats.connected == 1, "\(stats)")
            _ = bigConnected
        }
    }

    @Test func aFrameAtTheLimitIsReadAndAnswered() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let (client, _) = try await server.join(session)
            let padding = String(repeating: " ", count: ProtocolLimits.maxFrameBytes - 40)
            let text = #"{"type":"ping","seq":3}"# + padding
            client.sendRaw(String(text.prefix(ProtocolLimits.maxFrameBytes)))
            #expect(await client.nextMessage() == .pong(.init(seq: 3)))
        }
    }

    @Test func otherPathsDoNotUpgrade() async throws {
        try await TestServer.with { server in
            await #expect(throws: (any Error).self) { _ = try await RawClient(port: server.port, path: "/elsewhere") }
            let stats = await server.stats { $0.socketTasks == 0 }
            #expect(stats.sockets == 0 && stats.socketTasks == 0)
        }
    }
}
