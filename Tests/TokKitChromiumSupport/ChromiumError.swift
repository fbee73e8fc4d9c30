/// Why driving headless Chromium failed. Every case carries enough text to act on without a debugger.
///
/// Value type, usable from any thread.
public enum ChromiumError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No executable at this path: the tests need Chromium (`bash scripts/bootstrap --tests` installs it).
    case notInstalled(path: String)
    /// The process could not be started (spawn failed, profile directory not writable...).
    case launchFailed(String)
    /// Chromium did not print its DevTools endpoint in time, or exited before; carries the end of its stderr.
    case devToolsUnavailable(String)
    /// The DevTools WebSocket closed or failed; pending commands end with this.
    case connectionClosed(String)
    /// Chromium answered a DevTools command with an error.
    case protocolError(method: String, message: String)
    /// The evaluated script threw, or its promise rejected.
    case javaScriptException(String)
    /// A command or wait did not finish before its deadline.
    case timeout(String)
    /// The process is not in a network namespace holding only `lo` (see ``requireLoopbackOnlyNamespace()``).
    case notLoopbackOnlyNamespace(interfaces: [String])

    public var description: String {
        switch self {
        case .notInstalled(let path):
            "Chromium is missing at \(path): run `bash scripts/bootstrap --tests` (installs the chromium package)"
        case .launchFailed(let why): "cannot start Chromium: \(why)"
        case .devToolsUnavailable(let why): "Chromium's DevTools endpoint is unavailable: \(why)"
        case .connectionClosed(let why): "DevTools connection closed: \(why)"
        case .protocolError(let method, let message): "DevTools \(method) failed: \(message)"
        case .javaScriptException(let text): "JavaScript exception: \(text)"
        case .timeout(let what): "timed out: \(what)"
        case .notLoopbackOnlyNamespace(let interfaces):
            "this test must run in a network namespace holding only `lo`, found \(interfaces): "
                + "run it through `bash scripts/test` (unshare -n), or "
                + "`unshare -n sh -c 'ip link set lo up && swift test --skip-build --filter ...'`"
        }
    }
}
