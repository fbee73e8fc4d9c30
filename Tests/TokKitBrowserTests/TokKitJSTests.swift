import Testing
import TokKit

/// tokkit.js in headless Chromium against the in-process server: joining with a token, stream announcement,
/// chat both ways with a Swift `Session`, and browser-to-browser media through the relayed negotiation.
@Suite(.timeLimit(.minutes(2))) struct BrowserTokKitJSTests {
    @Test func browserJoinsPublishesAndChatsWithASwiftSession() async throws {
        let server = try await BrowserTestServer.start()
        defer { Task { await server.stop() } }
        let (swift, events) = try await server.swiftClient()
        let swiftId = try #require(swift.connection?.connectionID.rawValue)

        let chromium = try await BrowserPage.open(server.pageURL("/echo.html", tokens: ["token": try await server.token()]))
        let browserId = try #require(try await chromium.waitForReport("connected")[string: "id"])

        let joined = try #require(await events.first { $0.connectionCreated }, "Swift saw no connectionCreated")
        #expect(joined.connectionID.rawValue == browserId)
        let stream = try #require(await events.first { $0.streamCreated }, "Swift saw no streamCreated")
        #expect(stream.connection.connectionID.rawValue == browserId)
        #expect(stream.hasAudio && stream.hasVideo && stream.videoType == .camera)
        #expect(stream.videoDimensions?.width == 640 && stream.videoDimensions?.height == 480)

        try await swift.signal(type: "chat", data: "hello from Swift ✓")
        let atBrowser = try await chromium.waitForReport("chat") { $0[string: "from"] == swiftId }
        #expect(atBrowser[string: "data"] == "hello from Swift ✓")
        let echo = try #require(await events.first { $0.signal.flatMap { $0.from == browserId ? $0 : nil } },
                                "Swift received no chat from the browser")
        #expect(echo.type == "chat" && echo.data == "echo: hello from Swift ✓")
        await swift.disconnect()
        await chromium.close()
    }

    @Test func mediaFlowsBetweenTwoBrowserClientsThroughTheRelay() async throws {
        let server = try await BrowserTestServer.start()
        defer { Task { await server.stop() } }
        let tokens = ["tokenA": try await server.token(), "tokenB": try await server.token()]
        let chromium = try await BrowserPage.open(server.pageURL("/media.html", tokens: tokens))

        let announced = try await chromium.waitForReport("streamCreated")
        #expect(announced[bool: "hasAudio"] == true && announced[bool: "hasVideo"] == true)
        #expect(announced[int: "width"] == 640 && announced[int: "height"] == 480)

        // Publisher offers sendonly Opus/111 + VP8/96 over one BUNDLE transport; the subscriber answers recvonly.
        let sdp = try await chromium.waitForReport("sdp")
        let offer = try #require(sdp[string: "offer"]), answer = try #require(sdp[string: "answer"])
        #expect(SDPLines.formats(of: "audio", in: offer) == ["111"])
        #expect(SDPLines.formats(of: "video", in: offer) == ["96"])
        #expect(offer.contains("a=rtpmap:111 opus/48000/2") && offer.contains("a=rtpmap:96 VP8/90000"))
        #expect(offer.contains("a=group:BUNDLE 0 1"))
        #expect(SDPLines.directions(in: offer) == ["sendonly", "sendonly"])
        #expect(SDPLines.directions(in: answer) == ["recvonly", "recvonly"])

        // Frames keep being decoded at 640x480 in VP8; audio packets arrive in Opus.
        let first = try await chromium.waitForReport("stats", timeout: .seconds(30)) { ($0[int: "framesDecoded"] ?? 0) >= 10 }
        let firstCount = try #require(first[int: "framesDecoded"])
        let later = try await chromium.waitForReport("stats", timeout: .seconds(30)) {
            ($0[int: "framesDecoded"] ?? 0) >= firstCount + 20
        }
        #expect(later[int: "width"] == 640 && later[int: "height"] == 480)
        #expect(later[string: "videoCodec"] == "video/VP8" && later[int: "videoPayloadType"] == 96)
        #expect((later[int: "audioPackets"] ?? 0) > 0)
        #expect(later[string: "audioCodec"] == "audio/opus" && later[int: "audioPayloadType"] == 111)
        await chromium.close()
    }
}

/// Tiny SDP readers for assertions.
enum SDPLines {
    /// The payload formats of the first `m=<kind>` line.
    static func formats(of kind: String, in sdp: String) -> [String] {
        guard let line = lines(sdp).first(where: { $0.hasPrefix("m=\(kind) ") }) else { return [] }
        return Array(line.split(separator: " ").dropFirst(3).map(String.init))
    }

    /// The direction attribute of every media section, in order.
    static func directions(in sdp: String) -> [String] {
        let known: Set = ["sendrecv", "sendonly", "recvonly", "inactive"]
        return lines(sdp).compactMap { $0.hasPrefix("a=") && known.contains(String($0.dropFirst(2))) ? String($0.dropFirst(2)) : nil }
    }

    private static func lines(_ sdp: String) -> [String] {
        sdp.split(whereSeparator: \.isNewline).map(String.init)
    }
}
