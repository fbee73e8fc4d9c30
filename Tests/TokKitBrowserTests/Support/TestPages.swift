/// Pages the browser tests load from the server's static directory. They use the served `/tokkit.js` and report
/// through `console.log("TK " + JSON)` lines (see ``PageReport``). Credentials come in the query string.
enum TestPages {
    static let all: [(name: String, text: String)] = [
        ("echo.html", echo), ("media.html", media), ("publish.html", publish), ("subscribe.html", subscribe),
        ("blank.html", blank),
    ]

    /// Nothing but the server's origin: tests import `/tokkit.js` into it and drive its exports through
    /// `ChromiumPage.evaluate`.
    static let blank = """
        <!doctype html><meta charset="utf-8"><title>blank</title>
        """

    static let prelude = """
        import * as TokKit from "/tokkit.js";
        const q = new URLSearchParams(location.search);
        const report = (event, fields = {}) => console.log("TK " + JSON.stringify({ event, ...fields }));
        window.onerror = (message) => report("error", { message: String(message) });
        window.onunhandledrejection = (e) => report("error", { message: String(e.reason?.message ?? e.reason) });
        // A subscriber's receive statistics: what video and audio arrived, decoded, and with which codec.
        const inboundSample = async (subscriber) => {
          const stats = await subscriber.getStats();
          const sample = { framesDecoded: 0, width: 0, height: 0, videoCodec: "", videoPayloadType: -1,
                           audioPackets: 0, audioCodec: "", audioPayloadType: -1 };
          for (const s of stats.values()) {
            if (s.type !== "inbound-rtp") continue;
            const codec = stats.get(s.codecId);
            if (s.kind === "video") {
              Object.assign(sample, { framesDecoded: s.framesDecoded ?? 0, width: s.frameWidth ?? 0,
                                      height: s.frameHeight ?? 0, videoCodec: codec?.mimeType ?? "",
                                      videoPayloadType: codec?.payloadType ?? -1 });
            } else if (s.kind === "audio") {
              Object.assign(sample, { audioPackets: s.packetsReceived ?? 0, audioCodec: codec?.mimeType ?? "",
                                      audioPayloadType: codec?.payloadType ?? -1 });
            }
          }
          return sample;
        };
        """

    /// Joins with `token`, publishes camera + microphone, and answers every chat signal from another connection
    /// with a chat signal `echo: <data>` sent to that connection only.
    static let echo = """
        <!doctype html><meta charset="utf-8"><title>echo</title>
        <script type="module">
        \(prelude)
        const session = TokKit.initSession(q.get("apiKey"), q.get("sessionId"));
        session.on("connectionCreated", ({ connection }) => report("connectionCreated", { id: connection.connectionId, data: connection.data }));
        session.on("signal:chat", async ({ data, from }) => {
          report("chat", { data, from: from?.connectionId ?? null });
          if (from && from.connectionId !== session.connection.connectionId) {
            await session.signal({ type: "chat", data: `echo: ${data}`, to: from });
          }
        });
        await session.connect(q.get("token"));
        report("connected", { id: session.connection.connectionId });
        const publisher = await session.publish(null, { audio: true, video: true });
        report("published", { streamId: publisher.streamId });
        </script>
        """

    /// Two clients in one page: `a` publishes the fake camera/microphone, `b` subscribes to it. Reports the SDP
    /// both ends used, then `b`'s receive statistics every 250 ms (at most 200 samples).
    static let media = """
        <!doctype html><meta charset="utf-8"><title>media</title>
        <script type="module">
        \(prelude)
        const a = TokKit.initSession(q.get("apiKey"), q.get("sessionId"));
        const b = TokKit.initSession(q.get("apiKey"), q.get("sessionId"));
        const announced = new Promise((resolve) => b.on("streamCreated", ({ stream }) => resolve(stream)));
        await a.connect(q.get("tokenA"));
        await b.connect(q.get("tokenB"));
        const publisher = await a.publish(null, { audio: true, video: true, degradationPreference: "maintain-resolution" });
        const stream = await announced;
        report("streamCreated", { streamId: stream.streamId, hasAudio: stream.hasAudio, hasVideo: stream.hasVideo,
                                  width: stream.videoDimensions?.width, height: stream.videoDimensions?.height });
        const video = document.createElement("video");
        video.muted = true;
        document.body.append(video);
        const subscriber = await b.subscribe(stream, video);
        subscriber.on("connected", () => {
          report("sdp", { offer: subscriber.pc.remoteDescription.sdp, answer: subscriber.pc.localDescription.sdp });
        });
        for (let i = 0; i < 200; i++) {
          await new Promise((r) => setTimeout(r, 250));
          report("stats", await inboundSample(subscriber));
        }
        </script>
        """

    /// Joins with `token` and publishes camera + microphone; then reports the sent video of all its peer
    /// connections every 100 ms (at most 600 samples) as `outbound`: `seq`, `framesEncoded`, `framesSent`,
    /// `width`, `height`, `codec`, `limitation` (qualityLimitationReason), `targetBitrate`, `audioPackets`.
    static let publish = """
        <!doctype html><meta charset="utf-8"><title>publish</title>
        <script type="module">
        \(prelude)
        const session = TokKit.initSession(q.get("apiKey"), q.get("sessionId"));
        await session.connect(q.get("token"));
        const publisher = await session.publish(null, { audio: true, video: true, degradationPreference: "maintain-resolution" });
        report("published", { streamId: publisher.streamId });
        for (let seq = 0; seq < 600; seq++) {
          await new Promise((r) => setTimeout(r, 100));
          const sample = { seq, framesEncoded: 0, framesSent: 0, width: 0, height: 0, codec: "", audioPackets: 0,
                          limitation: "", targetBitrate: 0 };
          for (const pc of publisher.peerConnections.values()) {
            const stats = await pc.getStats();
            for (const s of stats.values()) {
              if (s.type !== "outbound-rtp") continue;
              if (s.kind === "video") {
                sample.framesEncoded += s.framesEncoded ?? 0;
                sample.framesSent += s.framesSent ?? 0;
                sample.width = s.frameWidth ?? sample.width;
                sample.height = s.frameHeight ?? sample.height;
                sample.codec = stats.get(s.codecId)?.mimeType ?? sample.codec;
                sample.limitation = s.qualityLimitationReason ?? "";
                sample.targetBitrate = Math.round(s.targetBitrate ?? 0);
              } else if (s.kind === "audio") {
                sample.audioPackets += s.packetsSent ?? 0;
              }
            }
          }
          report("outbound", sample);
        }
        </script>
        """

    /// Joins with `token`, subscribes to the first stream of another connection, and reports its receive
    /// statistics every 250 ms (at most 240 samples) as `stats` (the fields of ``media``'s samples).
    static let subscribe = """
        <!doctype html><meta charset="utf-8"><title>subscribe</title>
        <script type="module">
        \(prelude)
        const session = TokKit.initSession(q.get("apiKey"), q.get("sessionId"));
        const announced = new Promise((resolve) => session.on("streamCreated", ({ stream }) => resolve(stream)));
        await session.connect(q.get("token"));
        const stream = await announced;
        report("streamCreated", { streamId: stream.streamId, width: stream.videoDimensions?.width,
                                  height: stream.videoDimensions?.height });
        const video = document.createElement("video");
        video.muted = true;
        document.body.append(video);
        const subscriber = await session.subscribe(stream, video);
        subscriber.on("connected", () => report("connected"));
        subscriber.on("error", ({ error }) => report("error", { message: String(error?.message ?? error) }));
        for (let i = 0; i < 240; i++) {
          await new Promise((r) => setTimeout(r, 250));
          report("stats", await inboundSample(subscriber));
        }
        </script>
        """
}
