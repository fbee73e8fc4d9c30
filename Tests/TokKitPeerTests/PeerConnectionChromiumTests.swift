import Foundation
import Synchronization
import Testing
import TokKitChromiumSupport
import TokKitPeer
import TokKitRTP
import TokKitSDP

/// Issue 4 acceptance: TokKit's ``PeerConnection`` against headless Chromium over 127.0.0.1, in both offer
/// directions, with trickle ICE. Chromium sends its fake camera (VP8) and microphone (Opus); TokKit sends a
/// real VP8 keyframe and Opus silence; both ends check what arrived (SSRCs, payload types, whole frames,
/// RTCP reports). Runs only in a loopback-only network namespace (`bash scripts/test`).
@Suite("PeerConnection with Chromium", .serialized) struct PeerConnectionChromiumTests {
    /// The page side: one RTCPeerConnection with the fake devices; candidates and state go to the console.
    static let pageScript = """
        window.tk = {
          pc: null, stream: null,
          async setup() {
            this.stream = await navigator.mediaDevices.getUserMedia(
              {audio: true, video: {width: 640, height: 480, frameRate: 30}});
            const pc = new RTCPeerConnection({bundlePolicy: 'max-bundle', rtcpMuxPolicy: 'require'});
            this.pc = pc;
            pc.onicecandidate = e => console.log(e.candidate && e.candidate.candidate
              ? 'TKCAND ' + e.candidate.candidate : 'TKEOC');
            pc.onconnectionstatechange = () => console.log('TKSTATE ' + pc.connectionState);
          },
          async answer(offer) {
            await this.setup();
            await this.pc.setRemoteDescription({type: 'offer', sdp: offer});
            for (const t of this.stream.getTracks()) this.pc.addTrack(t, this.stream);
            await this.pc.setLocalDescription(await this.pc.createAnswer());
            return this.pc.localDescription.sdp;
          },
          async offer() {
            await this.setup();
            for (const t of this.stream.getTracks()) this.pc.addTrack(t, this.stream);
            await this.pc.setLocalDescription(await this.pc.createOffer());
            return this.pc.localDescription.sdp;
          },
          async accept(answer) { await this.pc.setRemoteDescription({type: 'answer', sdp: answer}); return ''; },
          async add(candidate) {
            await this.pc.addIceCandidate(candidate === '' ? {candidate: '', sdpMLineIndex: 0}
              : {candidate, sdpMLineIndex: 0});
            return '';
          },
          async stats() {
            const out = [];
            (await this.pc.getStats()).forEach(s => {
              if (['inbound-rtp', 'outbound-rtp', 'remote-inbound-rtp'].includes(s.type)) out.push({
                type: s.type, kind: s.kind, ssrc: s.ssrc, packetsReceived: s.packetsReceived ?? 0,
                packetsSent: s.packetsSent ?? 0, framesDecoded: s.framesDecoded ?? 0,
                roundTripTime: s.roundTripTime ?? 0, codecId: s.codecId ?? ''});
            });
            return out;
          },
        };
        'ok'
        """

    /// A 32x32 grey VP8 keyframe (libvpx via ffmpeg), behind a one-byte RFC 7741 payload descriptor (S=1).
    static let vp8Keyframe: [UInt8] = [0x10] + [
        0x30, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x20, 0x00, 0x20, 0x00, 0x00, 0x47, 0x08, 0x85, 0x85, 0x88, 0x85, 0x84,
        0x88, 0x02, 0x02, 0x00, 0x07, 0x91, 0x28, 0xD9, 0x60, 0xFE, 0x68, 0x00,
    ]
    /// An Opus packet: TOC 0xF8 (CELT FB 20 ms, one frame) followed by a silence frame.
    static let opusSilence: [UInt8] = [0xF8, 0xFF, 0xFE]

    /// What TokKit received on one section.
    final class Received: Sendable {
        let packets = Atomic<Int>(0)
        let frames = Atomic<Int>(0)
        let ssrcs = Mutex<Set<UInt32>>([])
        let payloadTypes = Mutex<Set<UInt8>>([])

        var handler: PeerConnection.RTPHandler {
            { [self] packet in
                packets.add(1, ordering: .relaxed)
                if packet.marker { frames.add(1, ordering: .relaxed) }
                let ssrc = packet.ssrc, pt = packet.payloadType
                ssrcs.withLock { _ = $0.insert(ssrc) }
                payloadTypes.withLock { _ = $0.insert(pt) }
            }
        }
    }

    /// One stream in Chromium's getStats.
    struct RTPStats {
        var type: String
        var kind: String
        var ssrc: UInt32
        var packetsReceived: Int
        var packetsSent: Int
        var framesDecoded: Int
        var roundTripTime: Double

        init?(_ json: JSONValue) {
            guard let type = json["type"]?.string, let kind = json["kind"]?.string,
                  let ssrc = json["ssrc"]?.number else { return nil }
            self.type = type
            self.kind = kind
            self.ssrc = UInt32(ssrc)
            packetsReceived = Int(json["packetsReceived"]?.number ?? 0)
            packetsSent = Int(json["packetsSent"]?.number ?? 0)
            framesDecoded = Int(json["framesDecoded"]?.number ?? 0)
            roundTripTime = json["roundTripTime"]?.number ?? 0
        }
    }

    /// One TokKit peer and one Chromium page wired together (signalling by hand, candidates trickled).
    final class Call: Sendable {
        let browser: Chromium
        let page: ChromiumPage
        let peer: PeerConnection
        let audio = Received()
        let video = Received()
        let log = Mutex<[String]>([])
        let chromiumState = Mutex<String>("new")
        private let tasks = Mutex<[Task<Void, Never>]>([])

        init(browser: Chromium,
             configuration: PeerConfiguration = PeerConfiguration(audioSSRC: 0x7000_0A0D, videoSSRC: 0x7000_B1DE))
            async throws {
            self.browser = browser
            page = try await browser.newPage()
            #expect(try await page.evaluate(PeerConnectionChromiumTests.pageScript) == "ok")
            peer = try PeerConnection(configuration: configuration)
            peer.setReceiveHandler(.audio, audio.handler)
            peer.setReceiveHandler(.video, video.handler)
        }

        /// Evaluates a call into `window.tk` with one string argument, passed as a JSON string literal.
        func tk(_ method: String, _ argument: String? = nil) async throws -> String {
            let literal = argument.map { JSONValue.string($0).jsonText } ?? ""
            return try await page.evaluate("tk.\(method)(\(literal))")
        }

        /// Starts trickling both ways: Chromium's candidates (console) to TokKit, TokKit's to Chromium. Call
        /// once both sides have the remote description.
        func startTrickle() {
            let fromChromium = Task { [self] in
                for await message in page.consoleMessages {
                    log.withLock { if $0.count < 1000 { $0.append(message.text) } }
                    if message.text.hasPrefix("TKCAND ") {
                        try? peer.addRemoteCandidate(String(message.text.dropFirst("TKCAND ".count)))
                    } else if message.text == "TKEOC" {
                        try? peer.addRemoteEndOfCandidates()
                    } else if message.text.hasPrefix("TKSTATE ") {
                        chromiumState.withLock { $0 = String(message.text.dropFirst("TKSTATE ".count)) }
                    }
                }
            }
            let toChromium = Task { [self] in
                for await event in peer.events {
                    switch event {
                    case .localCandidate(let c): _ = try? await tk("add", c)
                    case .gatheringComplete: _ = try? await tk("add", "")
                    case .stateChanged, .firstMediaPacket: break
                    }
                }
            }
            tasks.withLock { $0 += [fromChromium, toChromium] }
        }

        /// Chromium's RTP streams.
        func stats() async throws -> [RTPStats] {
            guard case .array(let list) = try await page.evaluateValue("tk.stats()") else { return [] }
            return list.compactMap(RTPStats.init)
        }

        /// Sends Opus silence every 20 ms and the VP8 keyframe every 33 ms until `stop` holds or 20 s pass.
        func sendMedia(until stop: () async -> Bool) async throws {
            let start = ContinuousClock.now
            for tick in 0..<1000 {
                if ContinuousClock.now - start > .seconds(20) { return }
                try PeerConnectionChromiumTests.opusSilence.withUnsafeBytes {
                    try peer.sendRTP(.audio, payload: $0, timestamp: UInt32(tick) &* 960)
                }
                if tick % 2 == 0 {  // 25 fps
                    try PeerConnectionChromiumTests.vp8Keyframe.withUnsafeBytes {
                        try peer.sendRTP(.video, payload: $0, timestamp: UInt32(tick) &* 1800, marker: true)
                    }
                }
                if tick % 10 == 9, await stop() { return }
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        func close() async {
            peer.close()
            await browser.close()
            for t in tasks.withLock({ $0 }) { await t.value }
        }
    }

    /// Polls `condition` every 50 ms until it holds or `timeout` passes.
    static func eventually(_ timeout: Duration = .seconds(20), _ condition: () async throws -> Bool)
        async rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }

    /// Everything issue 4 asks of a call once signalling is done: connected on both ends, Chromium's media at
    /// TokKit (SSRCs from Chromium's SDP, PT 111/96 on the right section, >= 30 whole frames), TokKit's media
    /// at Chromium (its SSRCs, packetsReceived growing, the keyframe decoded) and RTCP both ways.
    func checkMedia(_ call: Call, chromiumSDP: SessionDescription, audioPT: UInt8, videoPT: UInt8) async throws {
        let peer = call.peer
        let connected = await Self.eventually {
            peer.state == .connected && call.chromiumState.withLock { $0 } == "connected"
        }
        let recent = call.log.withLock { $0.suffix(10) }
        #expect(connected, "TokKit \(peer.state), Chromium \(call.chromiumState.withLock { $0 }); log: \(recent)")
        try #require(connected)

        // Chromium -> TokKit: whole VP8 frames (marker bit) and Opus packets.
        #expect(await Self.eventually { call.video.frames.load(ordering: .relaxed) >= 30
            && call.audio.packets.load(ordering: .relaxed) >= 50 },
                "frames \(call.video.frames.load(ordering: .relaxed)), audio \(call.audio.packets.load(ordering: .relaxed))")
        let sdpAudioSSRC = chromiumSDP.media.first { $0.kind == "audio" }?.sources.first?.ssrc
        let sdpVideoSSRC = chromiumSDP.media.first { $0.kind == "video" }?.sources.first?.ssrc
        #expect(sdpAudioSSRC != nil && sdpVideoSSRC != nil)
        #expect(call.audio.ssrcs.withLock { $0 } == Set([sdpAudioSSRC].compactMap { $0 }))
        #expect(call.video.ssrcs.withLock { $0 } == Set([sdpVideoSSRC].compactMap { $0 }))
        #expect(call.audio.payloadTypes.withLock { $0 } == [audioPT])
        #expect(call.video.payloadTypes.withLock { $0 } == [videoPT])

        // TokKit -> Chromium: inbound-rtp with TokKit's SSRCs, growing; the keyframe decodes.
        var before: [RTPStats] = []
        let sending = Task { [call] in
            try await call.sendMedia {
                let stats = (try? await call.stats()) ?? []
                let inbound = stats.filter { $0.type == "inbound-rtp" }
                guard inbound.count == 2, inbound.allSatisfy({ $0.packetsReceived > 0 }) else { return false }
                return stats.contains { $0.type == "inbound-rtp" && $0.kind == "video" && $0.framesDecoded > 0 }
                    && call.peer.statistics(.audio).roundTripTime != nil
                    && call.peer.statistics(.video).roundTripTime != nil
                    && call.peer.bandwidthEstimate != nil
            }
        }
        #expect(await Self.eventually {
            before = (try? await call.stats())?.filter { $0.type == "inbound-rtp" && $0.packetsReceived > 0 } ?? []
            return before.count == 2
        }, "Chromium received nothing from TokKit")
        try await sending.value
        let after = try await call.stats()
        let inbound = after.filter { $0.type == "inbound-rtp" }
        let audioIn = inbound.first { $0.kind == "audio" }, videoIn = inbound.first { $0.kind == "video" }
        #expect(audioIn?.ssrc == peer.configuration.audioSSRC)
        #expect(videoIn?.ssrc == peer.configuration.videoSSRC)
        for kind in ["audio", "video"] {
            let old = before.first { $0.kind == kind }?.packetsReceived ?? 0
            let new = inbound.first { $0.kind == kind }?.packetsReceived ?? 0
            #expect(new > old, "\(kind) packetsReceived \(old) -> \(new)")
        }
        #expect((videoIn?.framesDecoded ?? 0) > 0, "Chromium decoded none of TokKit's VP8 keyframes")
        // Chromium's own streams are the ones TokKit saw.
        let outbound = after.filter { $0.type == "outbound-rtp" }
        #expect(outbound.first { $0.kind == "audio" }?.ssrc == sdpAudioSSRC)
        #expect(outbound.first { $0.kind == "video" }?.ssrc == sdpVideoSSRC)

        // Transport-wide CC the other way: TokKit stamps its packets, Chromium's feedback about them arrives and
        // gives a send-side estimate within its bounds.
        let feedback = peer.transportFeedbackStatistics
        #expect(feedback.extensionID != nil && feedback.packetsStamped > 0, "\(feedback)")
        #expect(feedback.feedbackReceived > 0 && feedback.packetsReportedByPeer > 0, "\(feedback)")
        let estimate = try #require(peer.bandwidthEstimate, "no estimate from Chromium's feedback: \(feedback)")
        #expect(peer.configuration.bandwidthEstimateBounds.contains(estimate))

        // RTCP: Chromium's reception reports reach TokKit (RTT from LSR/DLSR), TokKit's reach Chromium.
        for kind in MediaKind.allCases {
            let s = peer.statistics(kind)
            #expect(s.receptionReportsReceived > 0, "\(kind): no reception report from Chromium")
            let rtt = try #require(s.roundTripTime, "\(kind): no RTT")
            #expect(rtt > .zero && rtt < .seconds(1), "\(kind) RTT \(rtt)")
            #expect(s.packetsReceived > 0 && s.packetsSent > 0 && s.senderReportsSent > 0)
        }
        #expect(await Self.eventually(.seconds(10)) {
            let remote = ((try? await call.stats()) ?? []).filter { $0.type == "remote-inbound-rtp" }
            return Set(remote.map(\.kind)) == ["audio", "video"]
        }, "Chromium got no reception report from TokKit")
    }

    @Test func tokkitOffersChromiumAnswers() async throws {
        try requireLoopbackOnlyNamespace()
        let browser = try await Chromium.launch()
        let call = try await Call(browser: browser)
        do {
            let offer = try call.peer.createOffer()
            let answerSDP = try await call.tk("answer", offer.sdp)
            let answer = try SessionDescription(parsing: answerSDP)
            try call.peer.setRemoteDescription(answer)
            call.startTrickle()
            try await checkMedia(call, chromiumSDP: answer, audioPT: SessionDescription.opusPayloadType,
                                 videoPT: SessionDescription.vp8PayloadType)
        } catch {
            await call.close()
            throw error
        }
        await call.close()
    }

    @Test func chromiumOffersTokKitAnswers() async throws {
        try requireLoopbackOnlyNamespace()
        let browser = try await Chromium.launch()
        let call = try await Call(browser: browser)
        do {
            let offer = try SessionDescription(parsing: try await call.tk("offer"))
            let answer = try call.peer.createAnswer(for: offer)
            _ = try await call.tk("accept", answer.sdp)
            call.startTrickle()
            let opus = try #require(offer.media.first { $0.kind == "audio" }?.codecs.first { $0.name == "opus" })
            let vp8 = try #require(offer.media.first { $0.kind == "video" }?.codecs.first { $0.name == "VP8" })
            try await checkMedia(call, chromiumSDP: offer, audioPT: opus.payloadType, videoPT: vp8.payloadType)
        } catch {
            await call.close()
            throw error
        }
        await call.close()
    }
}
