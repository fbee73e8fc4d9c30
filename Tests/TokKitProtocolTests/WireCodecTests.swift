import Testing
import TokKitProtocol

@Suite struct WireCodecTests {
    private func text(_ value: some Encodable) -> String { String(decoding: WireCodec.encode(value), as: UTF8.self) }

    @Test func everyClientMessageRoundTrips() throws {
        let messages: [ClientMessage] = [
            .connect(.init(apiKey: "k", sessionID: "s", token: "t")),
            .resume(.init(connectionID: "c", resumeToken: "r")),
            .disconnect,
            .ping(.init(seq: 7)),
            .publish(.init(name: "cam", videoType: .screen, videoDimensions: .init(width: 1280, height: 720))),
            .publish(.init(name: "cam", videoDimensions: .init(width: 640, height: 480), frameRate: 15)),
            .unpublish(.init(streamID: "s1")),
            .updateStream(.init(streamID: "s1", hasAudio: false)),
            .subscribe(.init(streamID: "s1", subscribeToVideo: false)),
            .unsubscribe(.init(subscriberID: "u1")),
            .negotiation(.init(streamID: "s1", subscriberID: "u1", kind: .offer, payload: "v=0\r\n")),
            .signal(.init(type: "chat", data: "hi", to: "c2")),
            .forceDisconnect(.init(connectionID: "c2")),
            .forceUnpublish(.init(streamID: "s1")),
            .forceMute(.init(streamID: "s1")),
        ]
        for (index, message) in messages.enumerated() {
            let request = ClientRequest(rid: index, message)
            let decoded = try WireCodec.decodeRequest(WireCodec.encode(request)).get()
            #expect(decoded == request, "\(message.type)")
        }
    }

    @Test func everyServerMessageRoundTrips() {
        let connection = ConnectionInfo(id: "c1", creationTime: 1_732_190_000_000, data: "name=a")
        let stream = StreamInfo(
            id: "s1", connectionID: "c1", name: "cam", hasAudio: true, hasVideo: true, videoType: .camera,
            videoDimensions: .init(width: 640, height: 480), creationTime: 1_732_190_000_001)
        let messages: [ServerMessage] = [
            .connected(
                .init(
                    version: 1, sessionID: "s", connection: connection, role: .moderator, connections: [connection],
                    streams: [stream], resumed: false, resumeToken: "r", heartbeatInterval: 5_000,
                    heartbeatTimeout: 15_000, resumeGrace: 20_000)),
            .connectionCreated(.init(connection: connection)),
            .connectionDestroyed(.init(connection: connection, reason: .forceDisconnected)),
            .streamCreated(.init(stream: stream)),
            .streamDestroyed(.init(stream: stream, reason: .networkDisconnected)),
            .streamPropertyChanged(.init(stream: stream, changed: [.hasAudio, .videoDimensions], forced: true)),
            .signal(.init(type: "chat", data: "hi", from: "c1", to: nil)),
            .subscribe(.init(streamID: "s1", subscriberID: "u1", from: "c2")),
            .unsubscribe(.init(streamID: "s1", subscriberID: "u1", from: "c2")),
            .negotiation(.init(streamID: "s1", subscriberID: "u1", kind: .candidate, payload: "{}", from: "c2")),
            .muteForced(.init(streamID: "s1")),
            .mediaRestart(.init(streamID: "s1", subscriberID: "u1", iceUfrag: "abcd", reason: "lost")),
            .archiveStarted(.init(archiveID: "a", name: "n")),
            .archiveStopped(.init(archiveID: "a")),
            .ack(.init(rid: 3, streamID: "s1", subscriberID: nil)),
            .error(.init(rid: nil, code: .invalidSignalType, message: "bad")),
            .pong(.init(seq: 9)),
        ]
        for message in messages {
            #expect(WireCodec.decodeServer(WireCodec.encode(message)) == .message(message), "\(message.type)")
        }
    }

    @Test func messagesAreFlatObjectsWithTheDocumentedNames() {
        let signal = text(ClientRequest(rid: 2, .signal(.init(type: "chat", data: "hi"))))
        #expect(signal.contains(#""type":"signal""#))
        #expect(signal.contains(#""signalType":"chat""#))
        #expect(signal.contains(#""rid":2"#))
        let error = text(ServerMessage.error(.init(rid: 3, code: .signalDataTooLong, message: "x")))
        #expect(error.contains(#""code":1413"#))
        #expect(text(Role.publisherOnly) == #""publisher-only""#)
    }

    @Test func aForgedSenderFieldIsNotPartOfAClientSignal() throws {
        let json = #"{"type":"signal","signalType":"chat","data":"x","from":"someone-else"}"#
        let request = try WireCodec.decodeRequest(Array(json.utf8)).get()
        #expect(request.message == .signal(.init(type: "chat", data: "x")))
    }

    /// Issue 17, item 3: every optional field of `publish` and `signal` (Docs/Protocol.md, 6.3) may be absent or
    /// null and then takes its documented default; present fields are still type-checked.
    @Test func optionalPublishAndSignalFieldsTakeTheDocumentedDefaults() throws {
        func decode(_ json: String) throws -> ClientRequest { try WireCodec.decodeRequest(Array(json.utf8)).get() }
        let defaults = ClientMessage.Publish(name: "", hasAudio: true, hasVideo: true, videoType: .camera)
        #expect(try decode(#"{"type":"publish"}"#).message == .publish(defaults))
        #expect(try decode(#"{"type":"publish","name":null,"hasAudio":null}"#).message == .publish(defaults))
        #expect(
            try decode(#"{"type":"publish","rid":4,"hasVideo":false,"videoDimensions":{"width":2,"height":3}}"#)
                == ClientRequest(rid: 4, .publish(.init(hasVideo: false, videoDimensions: .init(width: 2, height: 3)))))
        #expect(try decode(#"{"type":"signal"}"#).message == .signal(.init(type: "", data: "")))
        #expect(try decode(#"{"type":"signal","rid":3,"signalType":"bad type!"}"#)
            == ClientRequest(rid: 3, .signal(.init(type: "bad type!", data: ""))))
        #expect(try decode(#"{"type":"signal","data":"d","to":"c2"}"#).message == .signal(.init(data: "d", to: "c2")))
        #expect(try decode(#"{"type":"publish","frameRate":24}"#).message == .publish(.init(frameRate: 24)))
        #expect(try decode(#"{"type":"publish","frameRate":null}"#).message == .publish(defaults))
        for wrong in [#"{"type":"publish","name":5}"#, #"{"type":"publish","hasAudio":"yes"}"#,
                      #"{"type":"publish","frameRate":"30"}"#,
                      #"{"type":"signal","signalType":[]}"#] {
            #expect(throws: WireCodec.RequestFailure.self, "\(wrong)") { try decode(wrong) }
        }
    }

    @Test(arguments: [
        "", "{", "null", "[]", #"{"rid":5}"#, #"{"type":42}"#, #"{"type":"nope","rid":6}"#,
        #"{"type":"signal","rid":7,"data":5}"#, #"{"type":"publish","rid":8,"videoType":"hologram"}"#,
        #"{"type":"connect","rid":9,"version":1}"#,
    ])
    func malformedRequestsFailWith1011AndKeepTheirRid(_ json: String) {
        switch WireCodec.decodeRequest(Array(json.utf8)) {
        case .success: Issue.record("decoded \(json)")
        case let .failure(failure):
            #expect(failure.error.code == .invalidParameter)
            if json.contains(#""rid":"#) { #expect(failure.rid != nil, "\(json)") }
        }
    }

    /// `frameRate` (additive): a stream's info carries it when announced and leaves it out otherwise, so that an
    /// older reader sees the same object as before; a stream info without it decodes with none.
    @Test func aStreamsFrameRateRoundTripsAndIsAbsentWhenUnknown() throws {
        var stream = StreamInfo(
            id: "s1", connectionID: "c1", name: "cam", hasAudio: true, hasVideo: true, videoType: .camera,
            videoDimensions: .init(width: 640, height: 480), frameRate: 15, creationTime: 1)
        let announced = ServerMessage.streamCreated(.init(stream: stream))
        #expect(text(announced).contains(#""frameRate":15"#), "\(text(announced))")
        #expect(WireCodec.decodeServer(WireCodec.encode(announced)) == .message(announced))
        stream.frameRate = nil
        let unknown = ServerMessage.streamCreated(.init(stream: stream))
        #expect(!text(unknown).contains("frameRate"), "\(text(unknown))")
        #expect(WireCodec.decodeServer(WireCodec.encode(unknown)) == .message(unknown))
        let publish = ClientRequest(rid: 1, .publish(.init(frameRate: nil)))
        #expect(!text(publish).contains("frameRate"), "\(text(publish))")
    }

    /// Issue 17, item 4: a message the decoder refuses as a whole (too deeply nested) still has its `rid` read.
    @Test func theRidOfATooDeeplyNestedMessageIsStillRead() {
        let nested = String(repeating: "[", count: 5_000) + String(repeating: "]", count: 5_000)
        let cases: [(String, Int?)] = [
            (#"{"type":"ping","rid":12,"x":\#(nested)}"#, 12),
            (#"{"x":\#(nested),"rid":-3}"#, -3),
            (#" { "a" : {"rid":1}, "s":"\"rid\":2", "rid"\#t:\#n 4 }"#, 4),
            (#"{"rid":5,"x":[[[["#, 5),
            (#"{"x":{"rid":6,"y":\#(nested)}}"#, nil),
            (#"{"rid":"7","x":\#(nested)}"#, nil),
            (#"{"rid":8.5,"x":\#(nested)}"#, nil),
            (#"{"rid":99999999999999999999,"x":\#(nested)}"#, nil),
            (#"[{"rid":9},\#(nested)]"#, nil),
            (#"{"x":"rid","y":\#(nested)}"#, nil),
        ]
        for (json, rid) in cases {
            switch WireCodec.decodeRequest(Array(json.utf8)) {
            case .success: Issue.record("decoded \(json.prefix(40))")
            case let .failure(failure):
                #expect(failure.error.code == .invalidParameter)
                #expect(failure.rid == rid, "\(json.prefix(40))")
            }
        }
    }

    @Test func oversizedInputIsRefusedBeforeParsing() {
        let big = [UInt8](repeating: UInt8(ascii: " "), count: ProtocolLimits.maxFrameBytes + 1)
        guard case let .failure(failure) = WireCodec.decodeRequest(big) else {
            Issue.record("oversized input decoded")
            return
        }
        #expect(failure.error.code == .invalidParameter)
    }

    @Test func unknownServerMessageTypesAreReportedForIgnoring() {
        #expect(WireCodec.decodeServer(Array(#"{"type":"fromTheFuture","x":1}"#.utf8)) == .unknownType("fromTheFuture"))
        guard case .malformed = WireCodec.decodeServer(Array("not json".utf8)) else {
            Issue.record("garbage decoded")
            return
        }
    }

    @Test func unknownErrorCodesDecode() throws {
        let error = try WireCodec.decode(RestError.self, from: Array(#"{"code":4242,"message":"m"}"#.utf8))
        #expect(error.code == ErrorCode(4242))
    }

    @Test func tokenClaimsUseJWTNames() {
        let claims = TokenClaims(
            apiKey: "k", sessionID: "s", role: .subscriber, issuedAt: 1, expiresAt: 2, nonce: "n", connectionData: "d")
        let json = text(claims)
        for name in [#""iss":"k""#, #""session_id":"s""#, #""iat":1"#, #""exp":2"#, #""connection_data":"d""#] {
            #expect(json.contains(name), "\(name)")
        }
    }
}
