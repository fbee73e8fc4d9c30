import Foundation
import Synchronization
import Testing
import TokKitChromiumSupport
import TokKitPeer
import TokKitSDP
import TokKitTesting

/// Headless Chromium sends its 640x480 fake camera (VP8, the browser's default degradation preference: no
/// "maintain-resolution") to a receive-only TokKit ``PeerConnection`` over 127.0.0.1. With transport-cc negotiated
/// TokKit's feedback lets Chromium's bandwidth estimate (`availableOutgoingBitrate` of the selected candidate
/// pair) grow past 1 Mb/s, and the camera keeps 640 pixels of width; the same call without transport-cc, run first
/// in the same test, is the baseline. Runs only in a loopback-only network namespace (`bash scripts/test`).
@Suite("TransportFeedback with Chromium", .serialized) struct TransportFeedbackChromiumTests {
    static let pageScript = """
        window.tw = {
          pc: null,
          async offer() {
            const stream = await navigator.mediaDevices.getUserMedia(
              {video: {width: 640, height: 480, frameRate: 30}});
            const pc = new RTCPeerConnection({bundlePolicy: 'max-bundle', rtcpMuxPolicy: 'require'});
            this.pc = pc;
            pc.onicecandidate = e => console.log(e.candidate && e.candidate.candidate
              ? 'TWCAND ' + e.candidate.candidate : 'TWEOC');
            pc.onconnectionstatechange = () => console.log('TWSTATE ' + pc.connectionState);
            pc.addTrack(stream.getVideoTracks()[0], stream);
            await pc.setLocalDescription(await pc.createOffer());
            return pc.localDescription.sdp;
          },
          async accept(answer) { await this.pc.setRemoteDescription({type: 'answer', sdp: answer}); return ''; },
          async add(candidate) {
            await this.pc.addIceCandidate(candidate === '' ? {candidate: '', sdpMLineIndex: 0}
              : {candidate, sdpMLineIndex: 0});
            return '';
          },
          async stats() {
            const out = {available: 0, width: 0, height: 0, target: 0, limitation: '', framesSent: 0};
            const report = await this.pc.getStats();
            let pair = '';
            report.forEach(s => { if (s.type === 'transport') pair = s.selectedCandidatePairId ?? ''; });
            report.forEach(s => {
              if (s.type === 'candidate-pair' && s.id === pair) out.available = s.availableOutgoingBitrate ?? 0;
              if (s.type === 'outbound-rtp' && s.kind === 'video') {
                out.width = s.frameWidth ?? 0; out.height = s.frameHeight ?? 0; out.target = s.targetBitrate ?? 0;
                out.limitation = s.qualityLimitationReason ?? ''; out.framesSent = s.framesSent ?? 0;
              }
            });
            return out;
          },
        };
        'ok'
        """

    /// What one call showed: the highest estimate, the widths sent once frames flowed, the last sample.
    struct Outcome: CustomStringConvertible {
        var maximumAvailable: Double = 0
        var widths: [Int] = []
        var last: [String: JSONValue] = [:]
        var feedback = TransportFeedbackStatistics()

        var description: String {
            "max availableOutgoingBitrate \(Int(maximumAvailable)) b/s, widths \(Set(widths).sorted()), last "
                + "\(last["width"]?.number.map { Int($0) } ?? -1)x\(last["height"]?.number.map { Int($0) } ?? -1) "
                + "target \(Int(last["target"]?.number ?? -1)) limited by '\(last["limitation"]?.string ?? "?")', "
                + "TokKit feedback sent \(feedback.feedbackSent), packets recorded \(feedback.packetsRecorded)"
        }
    }

    /// One call: Chromium offers, TokKit (receive only) answers, then Chromium's statistics are sampled every
    /// 500 ms for `duration` once connected.
    func call(transportFeedbackInterval: Duration?, duration: Duration) async throws -> Outcome {
        let browser = try await Chromium.launch()
        let page = try await browser.newPage()
        let peer = try PeerConnection(configuration: PeerConfiguration(
            audioSSRC: nil, videoSSRC: nil, transportFeedbackInterval: transportFeedbackInterval))
        let chromiumState = Mutex("new")
        var tasks: [Task<Void, Never>] = []
        func tw(_ method: String, _ argument: String? = nil) async throws -> String {
            try await page.evaluate("tw.\(method)(\(argument.map { JSONValue.string($0).jsonText } ?? ""))")
        }
        func finish() async {
            peer.close()
            await browser.close()
            for t in tasks { await t.value }
        }
        do {
            #expect(try await page.evaluate(Self.pageScript) == "ok")
            let offer = try SessionDescription(parsing: try await tw("offer"))
            let answer = try peer.createAnswer(for: offer)
            _ = try await tw("accept", answer.sdp)
            tasks.append(Task {
                for await message in page.consoleMessages {
                    if message.text.hasPrefix("TWCAND ") {
                        try? peer.addRemoteCandidate(String(message.text.dropFirst("TWCAND ".count)))
                    } else if message.text == "TWEOC" {
                        try? peer.addRemoteEndOfCandidates()
                    } else if message.text.hasPrefix("TWSTATE ") {
                        chromiumState.withLock { $0 = String(message.text.dropFirst("TWSTATE ".count)) }
                    }
                }
            })
            tasks.append(Task {
                for await event in peer.events {
                    switch event {
                    case .localCandidate(let c): _ = try? await tw("add", c)
                    case .gatheringComplete: _ = try? await tw("add", "")
                    case .stateChanged, .firstMediaPacket: break
                    }
                }
            })
            let connected = await eventually(.seconds(20)) {
                peer.state == .connected && chromiumState.withLock { $0 } == "connected"
            }
            try #require(connected, "TokKit \(peer.state), Chromium \(chromiumState.withLock { $0 })")

            var outcome = Outcome()
            let start = ContinuousClock.now
            for _ in 0 ..< 200 where ContinuousClock.now - start < duration {
                try await Task.sleep(for: .milliseconds(500))
                guard case .object(let stats) = try await page.evaluateValue("tw.stats()") else { continue }
                outcome.last = stats
                outcome.maximumAvailable = max(outcome.maximumAvailable, stats["available"]?.number ?? 0)
                if (stats["framesSent"]?.number ?? 0) > 0, let width = stats["width"]?.number { outcome.widths.append(Int(width)) }
            }
            outcome.feedback = peer.transportFeedbackStatistics
            await finish()
            return outcome
        } catch {
            await finish()
            throw error
        }
    }

    /// Polls `condition` every 50 ms until it holds or `timeout` passes.
    func eventually(_ timeout: Duration, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }

    @Test func chromiumRampsUpAndKeeps640x480WithTransportFeedback() async throws {
        try requireLoopbackOnlyNamespace()
        let baseline = try await call(transportFeedbackInterval: nil, duration: .seconds(12))
        let feedback = try await call(transportFeedbackInterval: .milliseconds(50), duration: .seconds(12))
        let ratio = feedback.maximumAvailable / max(baseline.maximumAvailable, 1)
        print("TransportFeedback with Chromium: without transport-cc \(baseline); with transport-cc \(feedback); "
              + "estimate ratio \(String(format: "%.2f", ratio))")
        #expect(baseline.feedback.extensionID == nil && baseline.feedback.feedbackSent == 0)
        #expect(feedback.feedback.extensionID != nil && feedback.feedback.feedbackSent > 50, "\(feedback)")
        // Chromium's ramp is a rate: under ThreadSanitizer beside other builds it reached 3.6 Mb/s in two runs and
        // stalled near 0.77 Mb/s in two (its delay-based estimate backing off as the instrumented receiver fell
        // behind). There the bar is only that the estimate rises above the run without transport-cc (below).
        if !Sanitizers.active { #expect(feedback.maximumAvailable > 1_000_000, "\(feedback)") }
        #expect(feedback.maximumAvailable > baseline.maximumAvailable, "baseline \(baseline), with \(feedback)")
        #expect(!feedback.widths.isEmpty && feedback.widths.allSatisfy { $0 == 640 }, "\(feedback)")
    }
}
