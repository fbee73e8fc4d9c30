import Foundation
import TokKitChromiumSupport

/// The page a lab browser opens from the lab's session server (`--static-dir`): joins with the credentials in its
/// query string (and `transportPolicy`), publishes the fake camera and microphone (unless `publish=0`), subscribes to every stream, and
/// reports `TK {json}` console lines: `published`, then every `interval` ms (query, default 500) one `stats` line
/// per subscription with decoded frames and their size (and the `<video>`'s), bytes, video packets lost, freezes,
/// audio packets and concealment, NACKs, the downlink's layer limit (`bandwidthLimitedResolution`) and the selected
/// candidate pair's ends. Publishing options in the query: `width`, `height`, `fps` (the camera),
/// `degradation` (the video's degradationPreference), `simulcast=0` (one encoding on a routed upstream). The page
/// keeps `window.tk = {session, publisher, subscribers}` for tests that drive it (`ChromiumPage.evaluate`).
public enum LabPage {
    public static let name = "lab.html"

    public static let html = """
        <!doctype html><meta charset="utf-8"><title>lab</title>
        <script type="module">
        import * as TokKit from "/tokkit.js";
        const q = new URLSearchParams(location.search);
        const report = (event, fields = {}) => console.log("TK " + JSON.stringify({ event, ...fields }));
        window.onerror = (message) => report("error", { message: String(message) });
        window.onunhandledrejection = (e) => report("error", { message: String(e.reason?.message ?? e.reason) });
        const session = TokKit.initSession(q.get("apiKey"), q.get("sessionId"),
                                           { iceConfig: { transportPolicy: q.get("transportPolicy") ?? "all" } });
        const subscribers = [];
        window.tk = { session, publisher: null, subscribers };
        session.on("streamCreated", async ({ stream }) => {
          const video = document.createElement("video");
          video.muted = true;
          document.body.append(video);
          const subscriber = await session.subscribe(stream, video);
          subscriber.on("connected", () => report("subscriberConnected", { streamId: stream.streamId }));
          subscriber.on("disconnected", () => report("subscriberDisconnected", { streamId: stream.streamId }));
          subscribers.push(subscriber);
        });
        await session.connect(q.get("token"));
        // `publish=0` in the query: a subscriber only.
        const number = (name, fallback) => q.has(name) ? Number(q.get(name)) : fallback;
        const publisher = q.get("publish") === "0" ? null : await session.publish(null, {
          audio: true, video: true, width: number("width", 640), height: number("height", 480),
          frameRate: number("fps", null), degradationPreference: q.get("degradation"),
          simulcast: q.get("simulcast") !== "0" });
        window.tk.publisher = publisher;
        if (publisher) report("published", { streamId: publisher.streamId });
        const interval = Number(q.get("interval") ?? 500);
        for (let i = 0; i < 600000 / interval; i++) {
          await new Promise((r) => setTimeout(r, interval));
          let sent = 0, target = 0;
          for (const pc of publisher?.peerConnections.values() ?? []) {
            for (const s of (await pc.getStats()).values()) {
              if (s.type === "outbound-rtp" && s.kind === "video") {
                sent += s.bytesSent ?? 0;
                target = Math.max(target, Math.round(s.targetBitrate ?? 0));
              }
            }
          }
          report("publisher", { videoBytesSent: sent, targetBitrate: target, t: performance.now() });
          for (const subscriber of subscribers) {
            const stats = await subscriber.getStats();
            const line = { frames: 0, audioPackets: 0, local: "", remote: "", localAddress: "", remoteAddress: "",
                           videoBytes: 0, freezeCount: 0, freezeSeconds: 0, framesSeconds: 0, audioConcealed: 0,
                           audioSamples: 0, nacksSent: 0, width: 0, height: 0, t: performance.now(),
                           videoWidth: subscriber.element?.videoWidth ?? 0, packetsLost: 0,
                           limitWidth: subscriber.bandwidthLimitedResolution?.width ?? 0 };
            for (const s of stats.values()) {
              if (s.type === "inbound-rtp" && s.kind === "video") {
                Object.assign(line, { frames: s.framesDecoded ?? 0, videoBytes: s.bytesReceived ?? 0,
                                      freezeCount: s.freezeCount ?? 0, freezeSeconds: s.totalFreezesDuration ?? 0,
                                      framesSeconds: s.totalInterFrameDelay ?? 0, nacksSent: s.nackCount ?? 0,
                                      width: s.frameWidth ?? 0, height: s.frameHeight ?? 0,
                                      packetsLost: s.packetsLost ?? 0 });
              }
              if (s.type === "inbound-rtp" && s.kind === "audio") {
                Object.assign(line, { audioPackets: s.packetsReceived ?? 0, audioConcealed: s.concealedSamples ?? 0,
                                      audioSamples: s.totalSamplesReceived ?? 0 });
              }
              if (s.type === "transport" && s.selectedCandidatePairId) {
                const pair = stats.get(s.selectedCandidatePairId);
                const local = stats.get(pair?.localCandidateId), remote = stats.get(pair?.remoteCandidateId);
                Object.assign(line, { local: local?.candidateType ?? "", remote: remote?.candidateType ?? "",
                                      localAddress: local?.address ?? "", remoteAddress: remote?.address ?? "",
                                      relayProtocol: local?.relayProtocol ?? "" });
              }
            }
            report("stats", line);
          }
        }
        </script>
        """

    /// A temporary static directory holding the page.
    public static func directory() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tokkit-lab-pages-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(html.utf8).write(to: directory.appendingPathComponent(name))
        return directory.path
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    public struct Report: Decodable {
        public var event: String
        public var streamID: String?
        public var frames: Int?
        public var audioPackets: Int?
        public var local: String?
        public var remote: String?
        public var localAddress: String?
        public var remoteAddress: String?
        public var relayProtocol: String?
        public var videoBytes: Int?
        public var freezeCount: Int?
        public var freezeSeconds: Double?
        public var framesSeconds: Double?
        public var audioConcealed: Int?
        public var audioSamples: Int?
        public var nacksSent: Int?
        public var videoBytesSent: Int?
        public var targetBitrate: Int?
        /// The last decoded frame's size (`stats`), 0 before the first.
        public var width: Int?
        public var height: Int?
        /// The page's clock (performance.now(), ms) when the line was made.
        public var t: Double?
        /// The subscription's `<video>` `videoWidth` (`stats`; 0 until it plays).
        public var videoWidth: Int?
        /// The video's packets lost (inbound-rtp `packetsLost`, `stats`).
        public var packetsLost: Int?
        /// The width of the subscriber's `bandwidthLimitedResolution` (`stats`; 0: not limited by its downlink).
        public var limitWidth: Int?
        public var message: String?

        enum CodingKeys: String, CodingKey {
            case event
            case streamID = "streamId"
            case frames
            case audioPackets
            case local
            case remote
            case localAddress
            case remoteAddress
            case relayProtocol
            case videoBytes
            case freezeCount
            case freezeSeconds
            case framesSeconds
            case audioConcealed
            case audioSamples
            case nacksSent
            case videoBytesSent
            case targetBitrate
            case width
            case height
            case t
            case videoWidth
            case packetsLost
            case limitWidth
            case message
        }
    }

    public static func reports(_ recorder: ConsoleRecorder) -> [Report] {
        recorder.texts.compactMap { text in
            guard text.hasPrefix("TK ") else { return nil }
            return try? JSONDecoder().decode(Report.self, from: Data(text.dropFirst(3).utf8))
        }
    }

    /// Waits until the page has decoded `frames` frames and received audio on a subscription; returns that line.
    public static func waitForMedia(_ recorder: ConsoleRecorder, frames: Int = 30, timeout: Duration = .seconds(40))
        async throws -> Report {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let all = reports(recorder)
            if let error = all.first(where: { $0.event == "error" }) {
                throw Failure("the lab page failed: \(error.message ?? "?")")
            }
            if let line = all.last(where: { $0.event == "stats" && ($0.frames ?? 0) >= frames
                                             && ($0.audioPackets ?? 0) > 0 }) {
                return line
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Failure("the lab page did not decode \(frames) frames within \(timeout); its console:\n"
                                + recorder.texts.suffix(15).joined(separator: "\n"))
    }
}
