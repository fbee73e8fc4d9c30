import Synchronization
import Testing
import TokKit
import TokKitMedia
import TokKitAudio
import TokKitChromiumSupport
import TokKitTesting

/// Real media between tokkit.js in headless Chromium and a Swift `Session` (default `WebRTCNegotiator`, ICE on
/// loopback): Chromium's fake camera/microphone decoded by Swift, and a Swift pattern + tone decoded by Chromium.
/// Both directions are checked against the browser's own `getStats()`.
@Suite(.serialized, .timeLimit(.minutes(2))) struct BrowserMediaInteropTests {
    /// The process's audio device for these tests: a tone in, analysed out (no sound card needed).
    static let tone = ToneAudioDevice.measured().0

    @Test func browserPublishesAndSwiftDecodesNearlyEveryFrameSent() async throws {
        try AudioDeviceManager.setAudioDevice(Self.tone)
        let server = try await BrowserTestServer.start()
        defer { Task { await server.stop() } }
        let (swift, events) = try await server.swiftClient()
        let chromium = try await BrowserPage.open(server.pageURL("/publish.html", tokens: ["token": try await server.token()]))
        let published = try await chromium.waitForReport("published")

        let stream = try #require(await events.first { $0.streamCreated }, "Swift saw no streamCreated")
        #expect(stream.streamID.rawValue == published[string: "streamId"])
        let renderer = CountingRenderer(), delegate = InteropSubscriberEvents()
        let subscriber = Subscriber(stream: stream, videoRender: renderer, delegate: delegate)
        try await swift.subscribe(subscriber)

        #expect(await eventually(timeout: .seconds(20)) { delegate.events.contains("connected") },
                "subscriber events: \(delegate.events); stderr: \(chromium.stderrTail)")
        #expect(await eventually(timeout: .seconds(20)) { renderer.frames >= 10 },
                "\(renderer.snapshot); \(subscriber.statistics.video); \(subscriber.statistics.videoTrack)")
        #expect(renderer.snapshot.width == 640 && renderer.snapshot.height == 480, "\(renderer.snapshot)")

        // The window: from one browser sample to the first one 150 frames later, the Swift count read as each
        // sample's report arrives (a few ms after the browser took it).
        let start = try await Self.nextOutbound(chromium, renderer, after: Self.lastSeq(chromium))
        let sent0 = Self.sent(start.report), encoded0 = start.report[int: "framesEncoded"] ?? 0
        var end = start
        let reached = await eventually(timeout: .seconds(20)) {
            guard let next = try? await Self.nextOutbound(chromium, renderer, after: end.report[int: "seq"] ?? 0,
                                                          timeout: .seconds(2))
            else { return false }
            end = next
            return Self.sent(next.report) >= sent0 + 150
        }
        let sent = Self.sent(end.report) - sent0, encoded = (end.report[int: "framesEncoded"] ?? 0) - encoded0
        let decoded = end.rendered - start.rendered
        let summary = "browser sent \(sent) frames (encoded \(encoded)), Swift decoded \(decoded) in the window; "
            + "start \(start.report[int: "seq"] ?? -1)/\(start.rendered), end \(end.report[int: "seq"] ?? -1)/\(end.rendered); "
            + "browser sends \(end.report[int: "width"] ?? -1)x\(end.report[int: "height"] ?? -1) at "
            + "\(end.report[int: "targetBitrate"] ?? -1) b/s (limited by '\(end.report[string: "limitation"] ?? "?")'), "
            + "Swift renders \(renderer.snapshot.width)x\(renderer.snapshot.height)"
        #expect(reached, "the browser did not send 150 frames within 20 s: \(summary)")
        // Nearly every frame. Under a sanitizer (several times slower) the decoder falls behind and drops what it
        // cannot decode in time: 20 % was seen under ThreadSanitizer beside other builds, a share that measures the
        // machine; there the bar only checks that decoding keeps up at all.
        let share = Sanitizers.active ? 0.15 : 0.9
        #expect(sent > 0 && Double(decoded) >= share * Double(sent), "\(summary); \(subscriber.statistics.video); \(subscriber.statistics.videoTrack)")
        #expect(end.report[string: "codec"] == "video/VP8", "\(summary)")
        // Swift decodes whatever size the browser currently sends (read again briefly: a switch may be in flight).
        let sameSize = await eventually(timeout: .seconds(3)) {
            guard let now = chromium.reports.last(where: { $0.event == "outbound" }) else { return false }
            return renderer.snapshot.width == now[int: "width"] && renderer.snapshot.height == now[int: "height"]
        }
        #expect(sameSize, "\(summary)")
        // TokKit's transport-cc feedback lets Chromium's bandwidth estimate grow: it keeps 640x480.
        #expect(end.report[int: "width"] == 640 && renderer.snapshot.width == 640, "\(summary)")
        #expect(!delegate.events.contains { $0.hasPrefix("failed") }, "\(delegate.events)")
        print("BrowserMediaInterop browser→Swift: \(summary)")

        await chromium.close()
        await swift.disconnect()
    }

    /// Makes the tone the process's audio device, once other tests (which share it) have let it go; bounded.
    static func useTone() async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            do {
                return try AudioDeviceManager.setAudioDevice(Self.tone)
            } catch .deviceBusy where ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    @Test func swiftPublishesAndTheBrowserDecodesPictureAndSound() async throws {
        try await Self.useTone()
        let server = try await BrowserTestServer.start()
        defer { Task { await server.stop() } }
        let (swift, _) = try await server.swiftClient()
        let capturer = PatternCapturer(width: 320, height: 240, framesPerSecond: 30)
        let publisher = Publisher(name: "swift-pattern", videoCapture: capturer)
        try await swift.publish(publisher)

        let chromium = try await BrowserPage.open(server.pageURL("/subscribe.html", tokens: ["token": try await server.token()]))
        let announced = try await chromium.waitForReport("streamCreated")
        #expect(announced[string: "streamId"] == publisher.stream?.streamID.rawValue)
        _ = try await chromium.waitForReport("connected", timeout: .seconds(20))

        let first = try await chromium.waitForReport("stats", timeout: .seconds(20)) { ($0[int: "framesDecoded"] ?? 0) >= 20 }
        let firstFrames = first[int: "framesDecoded"] ?? 0, firstAudio = first[int: "audioPackets"] ?? 0
        let later = try await chromium.waitForReport("stats", timeout: .seconds(20)) {
            ($0[int: "framesDecoded"] ?? 0) >= firstFrames + 30 && ($0[int: "audioPackets"] ?? 0) > firstAudio
        }
        let summary = "frames decoded \(firstFrames) → \(later[int: "framesDecoded"] ?? -1), audio packets "
            + "\(firstAudio) → \(later[int: "audioPackets"] ?? -1), Swift captured \(capturer.framesDelivered)"
        #expect(later[int: "width"] == 320 && later[int: "height"] == 240, "\(summary)")
        #expect(later[string: "videoCodec"] == "video/VP8" && later[int: "videoPayloadType"] == 96, "\(summary)")
        #expect(later[string: "audioCodec"] == "audio/opus" && later[int: "audioPayloadType"] == 111, "\(summary)")
        print("BrowserMediaInterop Swift→browser: \(summary)")

        await chromium.close()
        await swift.disconnect()
    }

    /// The browser's frames sent (frames encoded where `framesSent` is not reported).
    static func sent(_ report: PageReport) -> Int {
        let sent = report[int: "framesSent"] ?? 0
        return sent > 0 ? sent : report[int: "framesEncoded"] ?? 0
    }

    static func lastSeq(_ chromium: BrowserPage) -> Int {
        chromium.reports.last { $0.event == "outbound" }?[int: "seq"] ?? -1
    }

    /// Waits (bounded) for the first `outbound` report after `seq`; returns it with the Swift frame count read
    /// as soon as it was seen.
    static func nextOutbound(_ chromium: BrowserPage, _ renderer: CountingRenderer, after seq: Int,
                             timeout: Duration = .seconds(10)) async throws -> (report: PageReport, rendered: Int) {
        var found: (PageReport, Int)?
        _ = await eventually(timeout: timeout) {
            guard let report = chromium.reports.last(where: { $0.event == "outbound" }), (report[int: "seq"] ?? -1) > seq
            else { return false }
            found = (report, renderer.frames)
            return true
        }
        guard let found else {
            throw BrowserPage.Failure(description: "no 'outbound' report after #\(seq) within \(timeout); "
                + "console: \(chromium.console.suffix(10))")
        }
        return found
    }
}

/// Records a subscriber's delegate calls. Thread-safe.
final class InteropSubscriberEvents: SubscriberDelegate {
    private let calls = Mutex<[String]>([])
    var events: [String] { calls.withLock { $0 } }
    func subscriberDidConnect(toStream subscriber: Subscriber) { calls.withLock { $0.append("connected") } }
    func subscriberDidDisconnect(fromStream subscriber: Subscriber) { calls.withLock { $0.append("disconnected") } }
    func subscriber(_ subscriber: Subscriber, didFailWithError error: SessionError) {
        calls.withLock { $0.append("failed(\(error.code))") }
    }
}
