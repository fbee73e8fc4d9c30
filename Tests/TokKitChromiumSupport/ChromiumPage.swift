import Foundation

/// One tab of a ``Chromium`` (a flat DevTools session): evaluate JavaScript, read its console.
///
/// Threading: any method from any task; calls are independent DevTools commands (they may overlap).
public final class ChromiumPage: Sendable {
    /// The page's `console.*` calls and uncaught exceptions (type `exception`), from when the page was opened.
    /// Finishes when the browser closes.
    public let consoleMessages: AsyncStream<ConsoleMessage>
    /// DevTools target id of the tab.
    public let targetID: String

    private let connection: DevToolsConnection
    private let session: String

    init(connection: DevToolsConnection, session: String, targetID: String,
         console: AsyncStream<ConsoleMessage>) {
        self.connection = connection
        self.session = session
        self.targetID = targetID
        consoleMessages = console
    }

    /// Evaluates `expression` in the page (`Runtime.evaluate`, awaiting a returned promise, result by value)
    /// and returns the value: a string as is, `undefined` as "", anything else as compact JSON. Top-level
    /// `await` is not allowed: wrap async code as `(async () => { ... })()`. Throws
    /// ``ChromiumError/javaScriptException(_:)`` when it throws or its promise rejects, ``ChromiumError/timeout(_:)``
    /// after `timeout`.
    public func evaluate(_ expression: String, timeout: Duration = .seconds(30)) async throws(ChromiumError)
        -> String {
        let value = try await evaluateValue(expression, timeout: timeout)
        return value.string ?? (value == .null ? "" : value.jsonText)
    }

    /// Like ``evaluate(_:timeout:)`` but returns the JSON value (`.null` for `undefined`).
    public func evaluateValue(_ expression: String, timeout: Duration = .seconds(30)) async throws(ChromiumError)
        -> JSONValue {
        let result = try await connection.send(
            "Runtime.evaluate",
            ["expression": .string(expression), "awaitPromise": .bool(true), "returnByValue": .bool(true)],
            session: session, timeout: timeout)
        if let details = result["exceptionDetails"] {
            throw .javaScriptException(details["exception"]?["description"]?.string
                ?? details["exception"]?["value"]?.jsonText ?? details["text"]?.string ?? details.jsonText)
        }
        return result["result"]?["value"] ?? .null
    }

    /// Navigates to `url` and waits until `document.readyState` is `complete`, at most `timeout`.
    ///
    /// A navigation that fails with `net::ERR_NETWORK_CHANGED` is tried again, at most three times in all:
    /// Chromium fails a load with it when it sees an interface of its namespace change, which a lab host's links
    /// can still do just after Chromium started there (seen once, 2026-12-03, in network-bench's first navigation).
    public func navigate(to url: String, timeout: Duration = .seconds(30)) async throws(ChromiumError) {
        let deadline = ContinuousClock.now + timeout
        for attempt in 1...3 {
            let result = try await connection.send("Page.navigate", ["url": .string(url)], session: session,
                                                   timeout: deadline - ContinuousClock.now)
            guard let error = result["errorText"]?.string else { break }
            guard error == "net::ERR_NETWORK_CHANGED", attempt < 3 else {
                throw .protocolError(method: "Page.navigate", message: error)
            }
            try? await Task.sleep(for: .milliseconds(250))
        }
        while ContinuousClock.now < deadline {
            if (try? await evaluate("document.readyState", timeout: .seconds(5))) == "complete" { return }
            try? await Task.sleep(for: .milliseconds(20))
        }
        throw .timeout("\(url) did not finish loading within \(timeout)")
    }
}
