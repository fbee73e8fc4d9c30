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

    /// Issue 17, item 4: invalid UTF-8 was accepted and relayed as U+FFFD; RFC 6455 (8.1) requires closing with 1007.
    @Test func invalidUTF8ClosesWith1007AndNothingIsRelayed() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let (sender, _) = try await server.join(session)
            let (bystander, _) = try await server.join(session)
            _ = await sender.nextMessage()  // connectionCreated bystander
            var invalid = Array(#"{"type":"signal","signalType":"t","data":"x"#.utf8)
            invalid += [0xC3, 0x28] + Array(#""}"#.utf8)
            sender.sendFrame(.text, invalid)
            let close = await sender.waitForClose()
            #expect(close.closed && close.code == .dataInconsistentWithMessage, "\(String(describing: close.code))")
            bystander.send(.ping(.init(seq: 4)))
            #expect(await bystander.nextMessage() == .pong(.init(seq: 4)), "no signal relayed, bystander kept")
        }
    }

    /// Issue 17, item 4: a message over the limit sent in fragments closed with 1000, not the documented 1009; one
    /// within the limit in fragments is read as one message.
    @Test func fragmentedMessagesCountAgainstTheLimit() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let (client, _) = try await server.join(session)
            let text = Array(#"{"type":"ping","seq":6}"#.utf8) + [UInt8](repeating: 0x20, count: 1_000)
            client.sendFrame(.text, fin: false, Array(text[..<5]))
            client.sendFrame(.continuation, fin: false, Array(text[5..<500]))
            client.sendFrame(.continuation, fin: true, Array(text[500...]))
            #expect(await client.nextMessage() == .pong(.init(seq: 6)))

            let (big, _) = try await server.join(session)
            _ = await client.nextMessage()  // connectionCreated big
            let chunk = [UInt8](repeating: 0x20, count: 16_384)
            big.sendFrame(.text, fin: false, Array(#"{"type":"ping","seq":7}"#.utf8))
            for _ in 0..<4 { big.sendFrame(.continuation, fin: false, chunk) }  // 65 536 + 23 bytes by now
            big.sendFrame(.continuation, fin: true, Array("}".utf8))
            let close = await big.waitForClose()
            #expect(close.closed && close.code == .messageTooLarge, "\(String(describing: close.code))")
            client.send(.ping(.init(seq: 8)))
            #expect(await client.nextMessage() == .pong(.init(seq: 8)), "the other socket is unaffected")
            let stats = await server.stats { $0.awaitingResume == 1 }
            #expect(stats.awaitingResume == 1 && stats.connected == 1, "closed as a lost socket: \(stats)")
        }
    }

    @Test func fragmentsOutOfOrderCloseWith1002() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let (client, _) = try await server.join(session)
            client.sendFrame(.continuation, fin: true, Array(#"{"type":"ping"}"#.utf8))
            let close = await client.waitForClose()
            #expect(close.closed && close.code == .protocolError, "\(String(describing: close.code))")
        }
    }

    /// Issue 17, item 4: the `rid` of a message too deeply nested for the decoder was dropped from its 1011 error.
    @Test func aReadableRidIsKeptInTheErrorOfATooDeeplyNestedMessage() async throws {
        try await TestServer.with { server in
            let session = try await server.session()
            let (client, _) = try await server.join(session)
            let depth = 10_000
            let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            for (rid, text) in [(12, #"{"type":"ping","rid":12,"x":\#(nested)}"#), (13, #"{"x":\#(nested), "rid" : 13 }"#)] {
                client.sendRaw(text)
                guard case let .error(error) = await client.nextMessage() else { throw TestFailure("no error") }
                #expect(error.code == .invalidParameter && error.rid == rid, "\(error)")
            }
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
