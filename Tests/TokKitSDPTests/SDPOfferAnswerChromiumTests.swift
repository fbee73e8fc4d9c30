import Testing
import TokKitChromiumSupport
import TokKitSDP

/// Checks TokKit's offers and answers against a real browser: headless Chromium (installed by
/// `scripts/bootstrap --tests`, driven over DevTools by `TokKitChromiumSupport`) applies them with
/// `setRemoteDescription`. Nothing goes over the network; every DevTools call is bounded by a deadline.
@Suite struct SDPOfferAnswerChromiumTests {
    /// Chromium's answer to `offer`, and the signalling state and send codecs after applying `answer` to its own
    /// offer (or the errors), as `[key: value]`.
    static let script = """
        (async (offer, answer) => {
          const out = {};
          try {
            const pc = new RTCPeerConnection();
            await pc.setRemoteDescription({type: "offer", sdp: offer});
            await pc.setLocalDescription(await pc.createAnswer());
            out.answer = pc.localDescription.sdp;
          } catch (e) { out["offer-error"] = String(e); }
          try {
            const s = await navigator.mediaDevices.getUserMedia({audio: true, video: true});
            const pc = new RTCPeerConnection();
            pc.addTrack(s.getAudioTracks()[0], s);
            pc.addTrack(s.getVideoTracks()[0], s);
            await pc.setLocalDescription(await pc.createOffer());
            await pc.setRemoteDescription({type: "answer", sdp: answer});
            const codecs = pc.getSenders().map(x => x.getParameters().codecs.map(c => c.mimeType).join(","));
            out.accepted = pc.signalingState + " " + codecs.join(";");
          } catch (e) { out["answer-error"] = String(e); }
          return out;
        })
        """

    /// Runs ``script`` in a fresh Chromium page and returns its reports.
    func runChromium(offer: String, answer: String) async throws -> [String: String] {
        try await Chromium.withBrowser { browser in
            let page = try await browser.newPage()
            let call = "\(Self.script)(\(JSONValue.string(offer).jsonText), \(JSONValue.string(answer).jsonText))"
            guard case .object(let reports) = try await page.evaluateValue(call) else { return [:] }
            return reports.compactMapValues(\.string)
        }
    }

    @Test func chromiumAcceptsTokKitOfferAndAnswer() async throws {
        let offer = try SessionDescription.offer(tokkitOptions(remb: true))
        let answer = try SessionDescription.answer(to: SessionDescription(parsing: chromiumOffer), tokkitOptions())
        let reports = try await runChromium(offer: offer.sdp, answer: answer.sdp)
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
