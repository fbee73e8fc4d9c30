import Foundation
import Synchronization
import Testing
import TokKitChromiumSupport
import TokKitPeer
import TokKitRTP
import TokKitSDP

/// RFC 2198 redundant audio against headless Chromium, in both offer directions: with
/// ``PeerConfiguration/audioRedundancy`` the `red` codec is negotiated first, Chromium then sends its Opus in RED
/// packets that carry the previous packet (which TokKit's parser reads), and decodes TokKit's RED packets (its
/// audio inbound stream grows, with little concealment). Loopback-only namespace (`bash scripts/test`).
@Suite("PeerConnection RED with Chromium", .serialized) struct PeerConnectionChromiumREDTests {
    /// What TokKit received as audio: payload types, RED packets parsed, with a redundant block, malformed.
    final class REDReceived: Sendable {
        let packets = Atomic<Int>(0)
        let red = Atomic<Int>(0)
        let withRedundancy = Atomic<Int>(0)
        let malformed = Atomic<Int>(0)
        let payloadTypes = Mutex<Set<UInt8>>([])
        let blockTypes = Mutex<Set<UInt8>>([])
        /// The first malformed payload (to show what it was).
        let firstMalformed = Mutex<[UInt8]?>(nil)

        func handler(redPayloadType: @escaping @Sendable () -> UInt8?) -> PeerConnection.RTPHandler {
            { [self] packet in
                packets.add(1, ordering: .relaxed)
                let pt = packet.payloadType
                payloadTypes.withLock { _ = $0.insert(pt) }
                // Chromium's padding-only packets (RTP padding, no payload) are not RED payloads.
                guard pt == redPayloadType(), !packet.payload.isEmpty else { return }
                red.add(1, ordering: .relaxed)
                var redundant = false
                var types: Set<UInt8> = []
                do throws(RTPError) {
                    try REDPayload.forEachBlock(in: packet.payload) { block in
                        if block.distance > 0 && !block.bytes.isEmpty { redundant = true }
                        types.insert(block.payloadType)
                    }
                } catch {
                    malformed.add(1, ordering: .relaxed)
                    let bytes = Array(packet.payload.prefix(16))
                    firstMalformed.withLock { if $0 == nil { $0 = bytes } }
                }
                if redundant { withRedundancy.add(1, ordering: .relaxed) }
                blockTypes.withLock { $0.formUnion(types) }
            }
        }
    }

    /// Chromium's audio inbound stream: packets, samples, concealed samples, and its codec's MIME type.
    static let audioStats = """
        (async () => {
          const all = await tk.pc.getStats();
          let out = {packetsReceived: 0, totalSamplesReceived: 0, concealedSamples: 0, mimeType: ''};
          all.forEach(s => {
            if (s.type === 'inbound-rtp' && s.kind === 'audio') {
              out.packetsReceived = s.packetsReceived ?? 0;
              out.totalSamplesReceived = s.totalSamplesReceived ?? 0;
              out.concealedSamples = s.concealedSamples ?? 0;
              const c = all.get(s.codecId);
              out.mimeType = c ? c.mimeType : '';
            }
          });
          return out;
        })()
        """

    /// Plays the received audio track in an audio element.
    static let playAudio = """
        (async () => {
          const track = tk.pc.getReceivers().map(r => r.track).find(t => t && t.kind === 'audio');
          const a = document.createElement('audio');
          a.srcObject = new MediaStream([track]);
          document.body.appendChild(a);
          try { await a.play(); return 'playing'; } catch (e) { return String(e); }
        })()
        """

    func run(tokkitOffers: Bool) async throws {
        try requireLoopbackOnlyNamespace()
        // Chromium plays the received audio (an audio element: its NetEq is pulled only then), without a gesture.
        let browser = try await Chromium.launch(arguments: ["--autoplay-policy=no-user-gesture-required"])
        var configuration = PeerConfiguration(audioSSRC: 0x7000_0A0D, videoSSRC: 0x7000_B1DE)
        configuration.audioRedundancy = true
        let call = try await PeerConnectionChromiumTests.Call(browser: browser, configuration: configuration)
        let received = REDReceived()
        let peer = call.peer
        peer.setReceiveHandler(.audio, received.handler { peer.audioRedundancyPayloadTypes?.red })
        do {
            let chromiumSDP: SessionDescription
            if tokkitOffers {
                let offer = try peer.createOffer()
                chromiumSDP = try SessionDescription(parsing: try await call.tk("answer", offer.sdp))
                try peer.setRemoteDescription(chromiumSDP)
            } else {
                chromiumSDP = try SessionDescription(parsing: try await call.tk("offer"))
                let answer = try peer.createAnswer(for: chromiumSDP)
                _ = try await call.tk("accept", answer.sdp)
            }
            call.startTrickle()
            let audioCodecs = chromiumSDP.media.first { $0.kind == "audio" }?.codecs.map(\.name) ?? []
            #expect(audioCodecs.contains("red"), "Chromium's \(tokkitOffers ? "answer" : "offer"): \(audioCodecs)")
            let types = try #require(peer.audioRedundancyPayloadTypes, "RED not negotiated: \(audioCodecs)")
            #expect(peer.audioRedundancySent.negotiated)
            let connected = await PeerConnectionChromiumTests.eventually {
                peer.state == .connected && call.chromiumState.withLock { $0 } == "connected"
            }
            try #require(connected, "TokKit \(peer.state), Chromium \(call.chromiumState.withLock { $0 })")

            // Chromium -> TokKit: RED packets whose blocks are Opus, most carrying the packet before.
            #expect(await PeerConnectionChromiumTests.eventually { received.red.load(ordering: .relaxed) >= 100 },
                    "audio packets \(received.packets.load(ordering: .relaxed)), payload types \(received.payloadTypes.withLock { $0 })")
            let red = received.red.load(ordering: .relaxed), redundant = received.withRedundancy.load(ordering: .relaxed)
            print("Chromium -> TokKit (\(tokkitOffers ? "TokKit offers" : "Chromium offers")): \(received.packets.load(ordering: .relaxed)) audio packets, \(red) RED, \(redundant) with a redundant block, payload types \(received.payloadTypes.withLock { $0 }), block types \(received.blockTypes.withLock { $0 })")
            #expect(received.payloadTypes.withLock { $0 } == [types.red])
            #expect(received.blockTypes.withLock { $0 } == [types.opus])
            #expect(received.malformed.load(ordering: .relaxed) == 0,
                    "first: \(received.firstMalformed.withLock { $0 }?.map { String($0, radix: 16) } ?? [])")
            #expect(redundant >= red * 9 / 10, "\(redundant) of \(red) RED packets carry redundancy")

            // TokKit -> Chromium: RED packets (each with the one before) that Chromium decodes and plays.
            _ = try await call.page.evaluate(Self.playAudio)
            let sending = Task { [call] in
                var ticks = 0
                try await call.sendMedia { ticks += 1; return ticks >= 15 }  // ~3 s
            }
            try await sending.value
            guard case .object(let stats) = try await call.page.evaluateValue(Self.audioStats) else {
                Issue.record("no stats")
                await call.close()
                return
            }
            let packets = stats["packetsReceived"]?.number ?? 0, samples = stats["totalSamplesReceived"]?.number ?? 0
            let concealed = stats["concealedSamples"]?.number ?? 0
            let sent = peer.audioRedundancySent
            print("TokKit -> Chromium: \(sent.packetsWithRedundancy) RED packets with a redundant block sent; Chromium: \(Int(packets)) packets, \(Int(samples)) samples, \(Int(concealed)) concealed, codec \(stats["mimeType"]?.string ?? "?")")
            #expect(sent.packetsWithRedundancy >= 100, "\(sent)")
            #expect(packets >= 100 && samples > 0, "\(stats)")
            #expect(concealed < samples * 0.2, "Chromium concealed \(concealed) of \(samples) samples: \(stats)")
        } catch {
            await call.close()
            throw error
        }
        await call.close()
    }

    @Test func chromiumOffersTokKitAnswersWithRED() async throws { try await run(tokkitOffers: false) }

    @Test func tokkitOffersChromiumAnswersWithRED() async throws { try await run(tokkitOffers: true) }
}
