import Foundation
import Testing
import TokKitSDP

/// Checks TokKit's offers and answers against a real browser: headless Chromium (installed by
/// `scripts/bootstrap --tests`) applies them with `setRemoteDescription` and reports through `console.log`.
/// Nothing goes over the network; the run is bounded by a deadline after which Chromium is terminated.
@Suite struct SDPOfferAnswerChromiumTests {
    static let chromium = "/usr/lib/chromium/chromium"

    static let page = """
        <!doctype html><script>
        const report = (key, value) => console.log("TOKKIT:" + key + ":" + btoa(value));
        (async () => {
          try {
            const pc = new RTCPeerConnection();
            await pc.setRemoteDescription({type: "offer", sdp: atob("OFFER")});
            await pc.setLocalDescription(await pc.createAnswer());
            report("answer", pc.localDescription.sdp);
          } catch (e) { report("offer-error", String(e)); }
          try {
            const s = await navigator.mediaDevices.getUserMedia({audio: true, video: true});
            const pc = new RTCPeerConnection();
            pc.addTrack(s.getAudioTracks()[0], s);
            pc.addTrack(s.getVideoTracks()[0], s);
            await pc.setLocalDescription(await pc.createOffer());
            await pc.setRemoteDescription({type: "answer", sdp: atob("ANSWER")});
            const codecs = pc.getSenders().map(x => x.getParameters().codecs.map(c => c.mimeType).join(","));
            report("accepted", pc.signalingState + " " + codecs.join(";"));
          } catch (e) { report("answer-error", String(e)); }
        })();
        </script>
        """

    /// Loads the page in Chromium and returns the `TOKKIT:<key>:<base64>` reports once `keys` are all in.
    func runChromium(offer: String, answer: String, keys: Set<String>) throws -> [String: String] {
        try #require(FileManager.default.isExecutableFile(atPath: Self.chromium),
                     "Chromium is missing at \(Self.chromium): run scripts/bootstrap --tests")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tokkit-sdp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let html = Self.page
            .replacingOccurrences(of: "OFFER", with: Data(offer.utf8).base64EncodedString())
            .replacingOccurrences(of: "ANSWER", with: Data(answer.utf8).base64EncodedString())
        let pageURL = dir.appendingPathComponent("page.html")
        try html.write(to: pageURL, atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.chromium)
        process.arguments = [
            "--headless=new", "--no-sandbox", "--user-data-dir=\(dir.appendingPathComponent("profile").path)",
            "--no-first-run", "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
            "--allow-loopback-in-peer-connection", "--enable-logging=stderr", "--v=0", pageURL.absoluteString,
        ]
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Bounded: whatever happens, Chromium is gone after 90 s, which ends the read loop with EOF.
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 90, execute: watchdog)
        defer {
            watchdog.cancel()
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }

        var reports: [String: String] = [:]
        var pending = ""
        let marker = "TOKKIT:"
        while !keys.isSubset(of: Set(reports.keys)) {
            let chunk = stderr.fileHandleForReading.availableData
            if chunk.isEmpty { break }  // EOF: Chromium exited or was terminated
            pending += String(decoding: chunk, as: UTF8.self)
            while let newline = pending.firstIndex(of: "\n") {
                let line = pending[..<newline]
                pending = String(pending[pending.index(after: newline)...])
                guard let start = line.range(of: marker) else { continue }
                let fields = line[start.upperBound...].split(separator: ":", maxSplits: 1)
                guard fields.count == 2 else { continue }
                let base64 = fields[1].prefix { $0.isLetter || $0.isNumber || "+/=".contains($0) }
                if let data = Data(base64Encoded: String(base64)) {
                    reports[String(fields[0])] = String(decoding: data, as: UTF8.self)
                }
            }
            if reports.keys.contains(where: { $0.hasSuffix("-error") }) { break }
        }
        return reports
    }

    @Test func chromiumAcceptsTokKitOfferAndAnswer() throws {
        let offer = try SessionDescription.offer(tokkitOptions(remb: true))
        let answer = try SessionDescription.answer(to: SessionDescription(parsing: chromiumOffer), tokkitOptions())
        let reports = try runChromium(offer: offer.sdp, answer: answer.sdp, keys: ["answer", "accepted"])
        #expect(reports["offer-error"] == nil, "Chromium rejected TokKit's offer: \(reports["offer-error"] ?? "")")
        #expect(reports["answer-error"] == nil, "Chromium rejected TokKit's answer: \(reports["answer-error"] ?? "")")

        // Chromium's answer to TokKit's offer, read back with TokKit's parser.
        let chromiumAnswer = try SessionDescription(parsing: try #require(reports["answer"]))
        #expect(chromiumAnswer.bundleGroup == .bundle(["0", "1"]))
        #expect(chromiumAnswer.media.map(\.port) == [9, 9])
        #expect(chromiumAnswer.media[0].codecs.map(\.name) == ["opus"])
        #expect(chromiumAnswer.media[1].codecs.map(\.name) == ["VP8"])
        #expect(chromiumAnswer.media[1].codecs.first?.feedback.contains(.pictureLossIndication) == true)
        #expect(chromiumAnswer.media.allSatisfy { $0.rtcpMux && $0.transport.setup == .active })
        #expect(chromiumAnswer.media[0].extensionID(SDPExtensionMap.midURI) == 1)

        // TokKit's answer to a Chromium offer, applied by Chromium: it now sends Opus and VP8 only.
        #expect(reports["accepted"] == "stable audio/opus;video/VP8")
    }
}
