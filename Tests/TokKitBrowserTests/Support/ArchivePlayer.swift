import TokKitChromiumSupport

/// Drives the first `<video>` element of a page in Chromium (the archive view page's player) through DevTools:
/// play it muted, read its state, seek it, and look at how its file was served.
///
/// Stateless apart from the page; every wait is bounded.
struct ArchivePlayer: Sendable {
    /// What the element reports at one moment.
    struct State: Sendable, CustomStringConvertible {
        var currentTime: Double
        var duration: Double
        var videoWidth: Int
        var videoHeight: Int
        var paused: Bool
        var ended: Bool
        /// `MediaError.code` with its message, nil while there is none.
        var error: String?

        var description: String {
            "t=\(currentTime) duration=\(duration) \(videoWidth)x\(videoHeight) paused=\(paused) ended=\(ended) "
                + "error=\(error ?? "none")"
        }
    }

    /// A fetch of part of the file.
    struct RangeReply: Sendable, Equatable {
        var status: Int
        var contentRange: String
        var bytes: Int
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let page: ChromiumPage

    private static let video = #"document.querySelector("video")"#

    /// Starts playback, muted (no user gesture needed with `--autoplay-policy=no-user-gesture-required`).
    func start() async throws {
        _ = try await page.evaluate("(async () => { const v = \(Self.video); v.muted = true; await v.play(); })()")
    }

    /// The element's state now.
    func state() async throws -> State {
        let value = try await page.evaluateValue("""
            (() => { const v = \(Self.video);
              return { t: v.currentTime, d: isFinite(v.duration) ? v.duration : -1, w: v.videoWidth,
                       h: v.videoHeight, paused: v.paused, ended: v.ended,
                       error: v.error ? v.error.code + " " + v.error.message : null }; })()
            """)
        guard let time = value["t"]?.number, let duration = value["d"]?.number, let width = value["w"]?.number,
              let height = value["h"]?.number
        else { throw Failure(description: "no video state: \(value.jsonText)") }
        return State(currentTime: time, duration: duration < 0 ? .infinity : duration, videoWidth: Int(width),
                     videoHeight: Int(height), paused: value["paused"] == .bool(true),
                     ended: value["ended"] == .bool(true), error: value["error"]?.string)
    }

    /// Polls the state (every 100 ms) until `condition` holds; throws with the last state after `timeout`, or as
    /// soon as the element reports an error.
    func waitUntil(timeout: Duration, _ condition: (State) -> Bool) async throws -> State {
        let deadline = ContinuousClock.now + timeout
        var last = try await state()
        while !condition(last) {
            if let error = last.error { throw Failure(description: "media error \(error): \(last)") }
            guard ContinuousClock.now < deadline else { throw Failure(description: "timed out at \(last)") }
            try await Task.sleep(for: .milliseconds(100))
            last = try await state()
        }
        return last
    }

    /// Sets `currentTime` and waits for `seeked` (at most 10 s); returns where it landed.
    func seek(to seconds: Double) async throws -> Double {
        let value = try await page.evaluateValue("""
            new Promise((resolve, reject) => { const v = \(Self.video);
              const timer = setTimeout(() => reject(new Error("no seeked event")), 10000);
              v.addEventListener("seeked", () => { clearTimeout(timer); resolve(v.currentTime); }, { once: true });
              v.currentTime = \(seconds); })
            """)
        guard let landed = value.number else { throw Failure(description: "seek answered \(value.jsonText)") }
        return landed
    }

    /// The HTTP statuses of the element's own requests, from the page's resource timing (`initiatorType` video).
    func mediaResponseStatuses() async throws -> [Int] {
        let value = try await page.evaluateValue("""
            performance.getEntriesByType("resource").filter((e) => e.initiatorType === "video")
              .map((e) => e.responseStatus)
            """)
        guard case .array(let items) = value else { throw Failure(description: "statuses: \(value.jsonText)") }
        return items.map { Int($0.number ?? -1) }
    }

    /// Fetches `range` of the element's file (its `currentSrc`) with a `Range` header.
    func fetchRange(_ range: ClosedRange<Int>) async throws -> RangeReply {
        let value = try await page.evaluateValue("""
            fetch(\(Self.video).currentSrc, { headers: { Range: "bytes=\(range.lowerBound)-\(range.upperBound)" } })
              .then(async (r) => ({ status: r.status, range: r.headers.get("content-range") || "",
                                    bytes: (await r.arrayBuffer()).byteLength }))
            """)
        guard let status = value["status"]?.number, let bytes = value["bytes"]?.number else {
            throw Failure(description: "fetch answered \(value.jsonText)")
        }
        return RangeReply(status: Int(status), contentRange: value["range"]?.string ?? "", bytes: Int(bytes))
    }
}
