import Foundation
import Testing
import TokKitChromiumSupport

@testable import TokKitServer

/// index.html in headless Chromium while the session is archived: `archiveStarted` shows the recording indicator;
/// `archiveStopped` hides it and shows a link to the archive's view page, which the page can load.
@Suite(.timeLimit(.minutes(2))) struct BrowserArchiveIndicatorTests {
    /// A recorder that joins nothing and writes nothing: the archive ends `failed` ("no media was recorded").
    struct SilentRecorder: ArchiveRecorderFactory {
        struct Recording: ArchiveRecording {
            func stop() async -> ArchiveRecordingResult { ArchiveRecordingResult(files: []) }
        }

        func start(_ request: ArchiveRecordingRequest) async throws(ArchiveRecorderError) -> any ArchiveRecording {
            Recording()
        }
    }

    @Test func pageShowsRecordingThenALinkToTheArchive() async throws {
        let server = try await BrowserTestServer.start(archiveRecorder: SilentRecorder())
        defer { Task { await server.stop() } }
        let chromium = try await BrowserPage.open("\(server.url)/?sessionId=\(server.sessionID)")
        _ = try #require(await chromium.waitForConsole { $0.hasPrefix("tokkit-page: publishing") },
                         "console: \(chromium.console)")
        let visible = #"JSON.stringify([!document.getElementById("recording").hidden, !document.getElementById("archive").hidden])"#
        #expect(try await chromium.page.evaluate(visible) == "[false,false]", "nothing shown before a recording")

        let archive = try await server.server.archives.start(ArchiveOptions(sessionID: server.sessionID))
        #expect(await chromium.waitForConsole { $0 == "tokkit-archive: started \(archive.id)" } != nil,
                "console: \(chromium.console)")
        #expect(try await chromium.page.evaluate(visible) == "[true,false]", "the recording indicator")

        _ = try await server.server.archives.stop(archive.id)
        #expect(await chromium.waitForConsole { $0 == "tokkit-archive: stopped \(archive.id)" } != nil,
                "console: \(chromium.console)")
        #expect(try await chromium.page.evaluate(visible) == "[false,true]", "the link instead of the indicator")
        let href = try await chromium.page.evaluate(#"document.getElementById("archive").href"#)
        #expect(href == "\(server.url)/view/\(archive.id)")
        await server.server.archives.settled(archive.id)
        let status = try await chromium.page.evaluate(
            #"fetch(document.getElementById("archive").href).then((r) => r.status)"#)
        #expect(status == "200", "the view page loads")
        await chromium.close()
    }
}
