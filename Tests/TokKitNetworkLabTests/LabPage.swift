import Foundation
import TokKitChromiumSupport
import TokKitNetworkLab

/// The page a lab browser opens from the lab's session server (`--static-dir`): joins with the credentials in its
/// query string (and `transportPolicy`), publishes the fake camera and microphone, subscribes to every stream, and
/// reports `TK {json}` console lines: `published`, then every 500 ms one `stats` line per subscription with
/// decoded frames, audio packets and the selected candidate pair's ends.
enum LabPage {
    static let name = "lab.html"

    static let html = """
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
        session.on("streamCreated", async ({ stream }) => {
          const video = document.createElement("video");
          video.muted = true;
          document.body.append(video);
          subscribers.push(await session.subscribe(stream, video));
        });
        await session.connect(q.get("token"));
        const publisher = await session.publish(null, { audio: true, video: true });
        report("published", { streamId: publisher.streamId });
        for (let i = 0; i < 600; i++) {
          await new Promise((r) => setTimeout(r, 500));
          for (const subscriber of subscribers) {
            const stats = await subscriber.getStats();
            const line = { frames: 0, audioPackets: 0, local: "", remote: "", localAddress: "", remoteAddress: "" };
            for (const s of stats.values()) {
              if (s.type === "inbound-rtp" && s.kind === "video") line.frames = s.framesDecoded ?? 0;
              if (s.type === "inbound-rtp" && s.kind === "audio") line.audioPackets = s.packetsReceived ?? 0;
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
    static func directory() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tokkit-lab-pages-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(html.utf8).write(to: directory.appendingPathComponent(name))
        return directory.path
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    struct Report: Decodable {
        var event: String
        var streamId: String?
        var frames: Int?
        var audioPackets: Int?
        var local: String?
        var remote: String?
        var localAddress: String?
        var remoteAddress: String?
        var relayProtocol: String?
        var message: String?
    }

    static func reports(_ recorder: ConsoleRecorder) -> [Report] {
        recorder.texts.compactMap { text in
            guard text.hasPrefix("TK ") else { return nil }
            return try? JSONDecoder().decode(Report.self, from: Data(text.dropFirst(3).utf8))
        }
    }

    /// Waits until the page has decoded `frames` frames and received audio on a subscription; returns that line.
    static func waitForMedia(_ recorder: ConsoleRecorder, frames: Int = 30, timeout: Duration = .seconds(40))
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
