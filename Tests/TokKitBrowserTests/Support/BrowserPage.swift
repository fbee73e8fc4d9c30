import TokKitChromiumSupport

/// One headless Chromium (the shared ``Chromium`` launcher of `TokKitChromiumSupport`) showing one page of the
/// test server, its console recorded from before the page loads (``ConsoleRecorder``).
///
/// Lifecycle: ``open(_:)`` refuses to run outside a loopback-only network namespace, launches Chromium and
/// opens the page; ``close()`` quits Chromium (bounded, asynchronous: nothing blocks the cooperative pool).
/// A test that throws before ``close()`` leaves the cleanup to ``Chromium``'s deinit (SIGKILL to its process
/// group, profile removed).
///
/// Thread-safe: everything is read through ``ConsoleRecorder`` and ``Chromium``.
final class BrowserPage: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let browser: Chromium
    let page: ChromiumPage
    let recorder: ConsoleRecorder

    private init(browser: Chromium, page: ChromiumPage) {
        self.browser = browser
        self.page = page
        recorder = ConsoleRecorder(page)
    }

    /// Launches Chromium and opens `url` (the page's console stream exists before it navigates, so nothing
    /// is missed). Throws ``ChromiumError`` when Chromium is missing (never skips), cannot start, or the
    /// namespace has more than `lo`.
    static func open(_ url: String) async throws -> BrowserPage {
        try requireLoopbackOnlyNamespace()
        // Muted autoplay of the subscribers' <video> elements without a user gesture.
        let browser = try await Chromium.launch(arguments: ["--autoplay-policy=no-user-gesture-required"])
        do {
            return BrowserPage(browser: browser, page: try await browser.newPage(url: url))
        } catch {
            await browser.close()
            throw error
        }
    }

    /// Quits Chromium (``Chromium/close(within:)``) and stops recording. Idempotent.
    func close() async {
        await browser.close()
        await recorder.stop()
    }

    /// Every console message so far (the text of `console.log(...)`), in order.
    var console: [String] { recorder.texts }

    /// The last lines Chromium wrote to stderr, for failure messages.
    var stderrTail: String { browser.stderrTail }

    /// Waits (bounded) until a console message satisfies `predicate`; returns it, or nil on timeout.
    func waitForConsole(timeout: Duration = .seconds(20), _ predicate: (String) -> Bool) async -> String? {
        await recorder.first(timeout: timeout, where: predicate)
    }
}

extension BrowserPage {
    /// Runs `body` with a blank page of a fresh test server (``TestPages/blank``: tests import `/tokkit.js` into it
    /// and drive its exports with `page.evaluate`), then closes the browser and stops the server, whatever happens.
    static func withBlankPage<T: Sendable>(_ body: (BrowserPage) async throws -> T) async throws -> T {
        let server = try await BrowserTestServer.start()
        do {
            let page = try await open(server.pageURL("/blank.html", tokens: [:]))
            do {
                let result = try await body(page)
                await page.close()
                await server.stop()
                return result
            } catch {
                await page.close()
                throw error
            }
        } catch {
            await server.stop()
            throw error
        }
    }
}
