import FoundationEssentials
import Logging
import Testing
import TokKit
import TokKitChromiumSupport
import TokKitProtocol
import TokKitServer

/// index.html in headless Chromium: given only a session id it fetches a token from the development route,
/// joins, publishes camera and microphone, and shows chat messages (echoed to the console).
@Suite(.timeLimit(.minutes(2))) struct BrowserIndexPageTests {
    @Test func pageJoinsWithTheCredentialsRoutePublishesAndShowsChat() async throws {
        let server = try await BrowserTestServer.start()
        defer { Task { await server.stop() } }
        let (swift, events) = try await server.swiftClient()
        let swiftId = try #require(swift.connection?.connectionID)

        let chromium = try await BrowserPage.open("\(server.url)/?sessionId=\(server.sessionID)")
        let joined = try #require(await events.first { $0.connectionCreated },
                                  "Swift saw no connectionCreated; console: \(chromium.console)")
        let stream = try #require(await events.first { $0.streamCreated },
                                  "Swift saw no streamCreated; console: \(chromium.console)")
        #expect(stream.connection.connectionID == joined.connectionID)
        #expect(stream.hasAudio && stream.hasVideo)
        _ = try #require(await chromium.waitForConsole { $0 == "tokkit-page: publishing \(stream.streamID)" },
                         "console: \(chromium.console)")

        try await swift.signal(type: "chat", data: "hi page")
        let line = await chromium.waitForConsole { $0.hasPrefix("tokkit-chat: \(swiftId): ") }
        #expect(line == "tokkit-chat: \(swiftId): hi page")
        await swift.disconnect()
        #expect(await chromium.waitForConsole { $0 == "tokkit-chat: * \(swiftId) left" } != nil)
        await chromium.close()
    }

    /// Issue 17: the `signaling-chat` example understood only `{"name","text"}` JSON and silently dropped the
    /// page's plain-text chat, and the page showed the example's JSON raw. Both now speak one format
    /// (Docs/Browser.md, "Chat"): each shows the other's lines as text under the sender's name, and both still show
    /// an older peer's plain text as text.
    @Test func pageAndSignalingChatExampleShowEachOthersLinesAsText() async throws {
        let server = try await BrowserTestServer.start()
        defer { Task { await server.stop() } }
        // The example joins the tutorial room "session" (GET /session), the page the same room (GET /room/session).
        let chat = try ExampleChild("signaling-chat", ["--name", "Alice", "--server", server.url])
        defer { chat.stop() }
        _ = try #require(await chat.waitForLine { $0.hasPrefix("* connected") }, "chat printed: \(chat.lines)")

        let page = try await BrowserPage.open("\(server.url)/?room=session&name=Page")
        _ = try #require(await page.waitForConsole { $0.hasPrefix("tokkit-page: publishing") },
                         "console: \(page.console)")
        // The page announced its name ("chat-join"), so the example can say who joined.
        #expect(await chat.waitForLine { $0 == "* Page joined" } != nil, "chat printed: \(chat.lines)")

        // Page → example: a line typed on the page is printed as text under the page's name.
        _ = try await page.page.evaluate("""
            document.getElementById("chat-input").value = "hello from the page";
            document.getElementById("chat-form").requestSubmit();
            """)
        #expect(await chat.waitForLine { $0.contains("hello from the page") } == "[Page] hello from the page",
                "chat printed: \(chat.lines)")
        #expect(await page.waitForConsole { $0.contains("hello from the page") } == "tokkit-chat: me: hello from the page")

        // Example → page: a line typed in the terminal is shown as text under the example's name, not as JSON.
        try chat.type("hello from the terminal")
        #expect(await page.waitForConsole { $0.contains("hello from the terminal") }
                == "tokkit-chat: Alice: hello from the terminal", "console: \(page.console)")

        // An older peer chatting in plain text: both show its line as text, under its connection id.
        let room = try await server.server.room("session")
        var settings = SessionSettings()
        settings.logger.logLevel = .error
        let older = Session(apiKey: BrowserTestServer.apiKey, sessionID: SessionID(room.sessionID), serverURL: URL(string: server.url)!,
                            settings: settings)
        try await older.connect(token: try await server.server.issueToken(sessionID: room.sessionID).token)
        let olderId = try #require(older.connection?.connectionID)
        try await older.signal(type: "chat", data: "a plain old line")
        #expect(await page.waitForConsole { $0.contains("a plain old line") } == "tokkit-chat: \(olderId): a plain old line")
        #expect(await chat.waitForLine { $0.contains("a plain old line") } == "[\(olderId)] a plain old line",
                "chat printed: \(chat.lines)")
        await older.disconnect()

        // The example leaves (end of input): the page names who left.
        chat.closeInput()
        #expect(await page.waitForConsole { $0 == "tokkit-chat: * Alice left" } != nil, "console: \(page.console)")
        #expect(await chat.waitForExit() == 0)
        await page.close()
    }
}
