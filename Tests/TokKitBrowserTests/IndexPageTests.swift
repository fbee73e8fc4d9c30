import Testing
import TokKit

/// index.html in headless Chromium: given only a session id it fetches a token from the development route,
/// joins, publishes camera and microphone, and shows chat messages (echoed to the console).
@Suite(.timeLimit(.minutes(2))) struct BrowserIndexPageTests {
    @Test func pageJoinsWithTheCredentialsRoutePublishesAndShowsChat() async throws {
        let server = try await BrowserTestServer.start()
        defer { Task { await server.stop() } }
        let (swift, events) = try await server.swiftClient()
        let swiftId = try #require(swift.connection?.connectionId)

        let chromium = try await BrowserPage.open("\(server.url)/?sessionId=\(server.sessionId)")
        let joined = try #require(await events.first { $0.connectionCreated },
                                  "Swift saw no connectionCreated; console: \(chromium.console)")
        let stream = try #require(await events.first { $0.streamCreated },
                                  "Swift saw no streamCreated; console: \(chromium.console)")
        #expect(stream.connection.connectionId == joined.connectionId)
        #expect(stream.hasAudio && stream.hasVideo)
        _ = try #require(await chromium.waitForConsole { $0 == "tokkit-page: publishing \(stream.streamId)" },
                         "console: \(chromium.console)")

        try await swift.signal(type: "chat", data: "hi page")
        let line = await chromium.waitForConsole { $0.hasPrefix("tokkit-chat: \(swiftId): ") }
        #expect(line == "tokkit-chat: \(swiftId): hi page")
        await swift.disconnect()
        #expect(await chromium.waitForConsole { $0 == "tokkit-chat: * \(swiftId) left" } != nil)
        await chromium.close()
    }
}
