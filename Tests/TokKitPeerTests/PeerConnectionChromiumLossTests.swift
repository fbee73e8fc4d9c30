import Foundation
import Synchronization
import Testing
import TokKitChromiumSupport
@testable import TokKitPeer
import TokKitRTP
import TokKitSDP

/// Loss repair against headless Chromium: Chromium's fake camera (VP8) reaches a receive-only TokKit
/// ``PeerConnection`` (feedback sent from SSRC 1, as a TokKit subscriber does) whose loss-injection seam
/// (``PeerConnection/setIncomingLoss(_:)``, before SRTP) drops chosen packets. TokKit must repair with NACK
/// (Chromium retransmits the very sequence numbers) and, when a stretch cannot be repaired or the first key frame
/// is lost, with PLI (Chromium encodes a new key frame and assembly resumes). Chromium's own `outbound-rtp`
/// counters (`nackCount`, `retransmittedPacketsSent`, `pliCount`) prove it understood TokKit's feedback.
/// Runs only in a loopback-only network namespace (`bash scripts/test`).
@Suite("PeerConnection loss repair with Chromium", .serialized, .timeLimit(.minutes(2)))
struct PeerConnectionChromiumLossTests {
    /// Chromium's sent video (`outbound-rtp`, kind video).
    struct Outbound: CustomStringConvertible {
        var packetsSent = 0, nackCount = 0, retransmittedPacketsSent = 0, pliCount = 0, firCount = 0
        var keyFramesEncoded = 0, framesEncoded = 0

        static let script = """
            (async () => {
              const out = {};
              (await tk.pc.getStats()).forEach(s => {
                if (s.type === 'outbound-rtp' && s.kind === 'video') Object.assign(out, {
                  packetsSent: s.packetsSent ?? 0, nackCount: s.nackCount ?? 0,
                  retransmittedPacketsSent: s.retransmittedPacketsSent ?? 0, pliCount: s.pliCount ?? 0,
                  firCount: s.firCount ?? 0, keyFramesEncoded: s.keyFramesEncoded ?? 0,
                  framesEncoded: s.framesEncoded ?? 0});
              });
              return out;
            })()
            """

        init() {}
        init(_ json: JSONValue) {
            func int(_ key: String) -> Int { Int(json[key]?.number ?? 0) }
            packetsSent = int("packetsSent")
            nackCount = int("nackCount")
            retransmittedPacketsSent = int("retransmittedPacketsSent")
            pliCount = int("pliCount")
            firCount = int("firCount")
            keyFramesEncoded = int("keyFramesEncoded")
            framesEncoded = int("framesEncoded")
        }

        var description: String {
            "Chromium sent \(packetsSent) packets, \(framesEncoded) frames (\(keyFramesEncoded) key), "
                + "got \(nackCount) NACKs (\(retransmittedPacketsSent) retransmitted), \(pliCount) PLIs, \(firCount) FIRs"
        }
    }

    /// TokKit's side of the video: every packet into a ``VP8FrameAssembler`` (on the network thread), a PLI
    /// (``PeerConnection/requestKeyframe()``) whenever it asks for a key frame, and what came out.
    final class VideoReceiver: Sendable {
        struct State {
            var packets = 0
            /// Sequence numbers seen (arrivals after the loss filter), in arrival order; bounded.
            var sequences: [UInt16] = []
            /// Frames assembled: (first sequence number, key frame), in order; bounded.
            var frames: [(first: UInt16, key: Bool)] = []
            var keyFrameRequests = 0
            var requestFailures: [String] = []
        }

        /// Lets the assembler live in a `Mutex` (only used under it).
        private struct Box: ~Copyable, @unchecked Sendable { let assembler: VP8FrameAssembler }

        let state = Mutex(State())
        private let box: Mutex<Box>
        private let peer: PeerConnection

        init(peer: PeerConnection) throws {
            self.peer = peer
            box = Mutex(Box(assembler: try VP8FrameAssembler()))
            peer.setReceiveHandler(.video) { [weak self] packet in self?.receive(packet) }
        }

        private func receive(_ packet: borrowing RTPPacketView) {
            let (sequence, timestamp, marker, payload) = (packet.sequenceNumber, packet.timestamp, packet.marker,
                                                          packet.payload)
            var frames: [(UInt16, Bool)] = []
            var requests = 0
            box.withLock { b in
                _ = try? b.assembler.insert(sequenceNumber: sequence, timestamp: timestamp, marker: marker,
                                            payload: payload)
                for _ in 0..<64 {
                    guard let event = b.assembler.next() else { break }
                    switch event {
                    case .frame(let f): frames.append((f.firstSequenceNumber, f.isKeyFrame))
                    case .keyFrameNeeded: requests += 1
                    }
                }
            }
            var failure: String?
            if requests > 0 {
                do { try peer.requestKeyframe() } catch { failure = "\(error)" }
            }
            state.withLock { s in
                s.packets += 1
                if s.sequences.count < 100_000 { s.sequences.append(sequence) }
                if s.frames.count < 100_000 { s.frames += frames.map { (first: $0.0, key: $0.1) } }
                s.keyFrameRequests += requests
                if let failure, s.requestFailures.count < 10 { s.requestFailures.append(failure) }
            }
        }

        var snapshot: State { state.withLock { $0 } }
        var frameCount: Int { state.withLock { $0.frames.count } }
    }

    /// A receive-only TokKit peer (as a subscriber: no SSRC of its own, feedback from SSRC 1) answering
    /// Chromium's camera + microphone offer; returns once both ends are connected and `frames` frames were
    /// assembled (when `frames` > 0).
    static func connect(_ browser: Chromium, frames: Int = 10)
        async throws -> (PeerConnectionChromiumTests.Call, VideoReceiver, videoSSRC: UInt32) {
        let call = try await PeerConnectionChromiumTests.Call(
            browser: browser, configuration: PeerConfiguration(audioSSRC: nil, videoSSRC: nil))
        let receiver = try VideoReceiver(peer: call.peer)
        let offer = try SessionDescription(parsing: try await call.tk("offer"))
        let videoSSRC = try #require(offer.media.first { $0.kind == "video" }?.sources.first?.ssrc)
        let answer = try call.peer.createAnswer(for: offer)
        _ = try await call.tk("accept", answer.sdp)
        call.startTrickle()
        let connected = await PeerConnectionChromiumTests.eventually {
            call.peer.state == .connected && call.chromiumState.withLock { $0 } == "connected"
        }
        try #require(connected, "TokKit \(call.peer.state), Chromium \(call.chromiumState.withLock { $0 })")
        if frames > 0 {
            let flowing = await PeerConnectionChromiumTests.eventually { receiver.frameCount >= frames }
            try #require(flowing, "frames assembled: \(receiver.frameCount), packets \(receiver.snapshot.packets)")
        }
        return (call, receiver, videoSSRC)
    }

    static func outbound(_ call: PeerConnectionChromiumTests.Call) async throws -> Outbound {
        Outbound(try await call.page.evaluateValue(Outbound.script))
    }

    /// Runs `body` with a connected call, closing it afterwards whatever happens.
    static func withCall(frames: Int = 10, before: ((PeerConnection) -> Void)? = nil,
                         _ body: (PeerConnectionChromiumTests.Call, VideoReceiver, UInt32) async throws -> Void)
        async throws {
        try requireLoopbackOnlyNamespace()
        let browser = try await Chromium.launch()
        var call: PeerConnectionChromiumTests.Call?
        do {
            let (c, receiver, ssrc) = try await connect(browser, frames: frames)
            call = c
            try await body(c, receiver, ssrc)
        } catch {
            if let call { await call.close() } else { await browser.close() }
            throw error
        }
        await call?.close()
    }

    @Test func droppedPacketsAreNACKedAndChromiumRetransmitsThem() async throws {
        try await Self.withCall { call, receiver, videoSSRC in
            // Start once Chromium is past its first second (its retransmission budget follows its bandwidth
            // estimate, which starts low), and lose under 10 % (more would make its loss-based estimate fall).
            var before = try await Self.outbound(call)
            _ = try await PeerConnectionChromiumTests.eventually(.seconds(10)) {
                before = try await Self.outbound(call)
                return before.packetsSent >= 100
            }
            // Drop the first arrival of every 15th video sequence number, 25 of them; let retransmissions pass.
            let dropped = Mutex<[UInt16]>([])
            call.peer.setIncomingLoss { ssrc, sequence in
                guard ssrc == videoSSRC, sequence % 15 == 3 else { return false }
                return dropped.withLock { d in
                    guard d.count < 25, !d.contains(sequence) else { return false }
                    d.append(sequence)
                    return true
                }
            }
            let allDropped = await PeerConnectionChromiumTests.eventually { dropped.withLock { $0.count } == 25 }
            call.peer.setIncomingLoss(nil)
            let lost = dropped.withLock { $0 }
            #expect(allDropped, "only \(lost.count) packets dropped")
            var missing: [UInt16] = []
            let recovered = await PeerConnectionChromiumTests.eventually(.seconds(10)) {
                let seen = Set(receiver.snapshot.sequences)
                missing = lost.filter { !seen.contains($0) }
                return missing.isEmpty
            }
            // Chromium's getStats may lag the packets it sent by a cached interval: read until it counts them.
            let repaired = lost.count - missing.count
            var after = try await Self.outbound(call)
            _ = try await PeerConnectionChromiumTests.eventually(.seconds(3)) {
                after = try await Self.outbound(call)
                return after.retransmittedPacketsSent - before.retransmittedPacketsSent >= repaired
            }
            let stats = call.peer.statistics(.video)
            let summary = "dropped \(lost), never arrived \(missing); TokKit sent \(stats.nacksSent) NACKs, "
                + "\(stats.keyFrameRequestsSent) PLIs; before: \(before); after: \(after)"
            #expect(stats.nacksSent > 0, "\(summary)")
            #expect(after.nackCount > before.nackCount, "\(summary)")
            #expect(after.retransmittedPacketsSent - before.retransmittedPacketsSent >= repaired, "\(summary)")
            // Not every loss comes back: in runs where Chromium ramped to ~3 Mb/s during the test, 4-9 of the 25
            // (the latest ones) were never resent and TokKit fell back to a PLI. So: most must come back by
            // retransmission, and for any that did not, TokKit must have given up on them with a PLI answered by
            // a keyframe sent after them (nothing left broken).
            #expect(repaired * 2 >= lost.count, "\(summary)")
            if !recovered, let last = missing.last {
                let keyframeAfter = receiver.snapshot.frames.contains { $0.key && $0.first &- last < 30_000 }
                #expect(stats.keyFrameRequestsSent > 0 && after.pliCount > before.pliCount && keyframeAfter,
                        "\(summary)")
            }
            print("ChromiumLoss NACK: \(summary)")
        }
    }

    @Test func anUnrepairableStretchIsRepairedByPLIAndAKeyFrame() async throws {
        try await Self.withCall { call, receiver, videoSSRC in
            let before = try await Self.outbound(call)
            let requestsBefore = call.peer.statistics(.video).keyFrameRequestsSent
            // Lose 30 consecutive video packets for good (retransmissions too): no NACK can repair them.
            let first = Mutex<UInt16?>(nil)
            call.peer.setIncomingLoss { ssrc, sequence in
                guard ssrc == videoSSRC else { return false }
                let start = first.withLock { f in
                    if f == nil { f = sequence &+ 5 }
                    return f!
                }
                return sequence &- start < 30
            }
            var start: UInt16 = 0
            let keyAfter = await PeerConnectionChromiumTests.eventually(.seconds(15)) {
                guard let s = first.withLock({ $0 }) else { return false }
                start = s
                let frames = receiver.snapshot.frames
                guard let key = frames.firstIndex(where: { $0.key && $0.first &- s >= 30 && $0.first &- s < 30_000 })
                else { return false }
                return frames.count - key >= 10  // decoding resumed: the key frame and 9 more
            }
            call.peer.setIncomingLoss(nil)
            let after = try await Self.outbound(call)
            let stats = call.peer.statistics(.video), snapshot = receiver.snapshot
            let summary = "lost \(start)..<\(start &+ 30); TokKit asked \(snapshot.keyFrameRequests) times, sent "
                + "\(stats.keyFrameRequestsSent - requestsBefore) PLIs (failures \(snapshot.requestFailures)); "
                + "\(snapshot.frames.count) frames assembled; before: \(before); after: \(after)"
            #expect(keyAfter, "\(summary)")
            #expect(stats.keyFrameRequestsSent > requestsBefore, "\(summary)")
            #expect(after.pliCount > before.pliCount, "\(summary)")
            #expect(after.keyFramesEncoded > before.keyFramesEncoded, "\(summary)")
            print("ChromiumLoss PLI: \(summary)")
        }
    }

    @Test func losingTheFirstKeyFrameIsRepairedByPLI() async throws {
        // The first 40 video packets (the first key frame among them) never arrive.
        let lost = Mutex<(first: UInt16?, count: Int)>((nil, 0))
        try requireLoopbackOnlyNamespace()
        let browser = try await Chromium.launch()
        let call = try await PeerConnectionChromiumTests.Call(
            browser: browser, configuration: PeerConfiguration(audioSSRC: nil, videoSSRC: nil))
        do {
            let receiver = try VideoReceiver(peer: call.peer)
            let offer = try SessionDescription(parsing: try await call.tk("offer"))
            let videoSSRC = try #require(offer.media.first { $0.kind == "video" }?.sources.first?.ssrc)
            call.peer.setIncomingLoss { ssrc, sequence in
                guard ssrc == videoSSRC else { return false }
                return lost.withLock { l in
                    if l.first == nil { l.first = sequence }
                    let offset = sequence &- l.first!
                    guard offset < 40 else { return false }
                    l.count += 1
                    return true
                }
            }
            let answer = try call.peer.createAnswer(for: offer)
            _ = try await call.tk("accept", answer.sdp)
            call.startTrickle()
            let resumed = await PeerConnectionChromiumTests.eventually(.seconds(20)) { receiver.frameCount >= 10 }
            let after = try await Self.outbound(call)
            let snapshot = receiver.snapshot, stats = call.peer.statistics(.video)
            let (first, count) = lost.withLock { $0 }
            let summary = "lost \(count) packets from #\(first.map(String.init) ?? "-"); arrived \(snapshot.packets); "
                + "TokKit asked \(snapshot.keyFrameRequests) times, sent \(stats.keyFrameRequestsSent) PLIs "
                + "(failures \(snapshot.requestFailures)); frames \(snapshot.frames.prefix(3)) … "
                + "(\(snapshot.frames.count)); Chromium: \(after)"
            #expect(count >= 30, "\(summary)")
            #expect(resumed, "\(summary)")
            #expect(snapshot.frames.first?.key == true, "\(summary)")
            if let f = first { #expect(snapshot.frames.allSatisfy { $0.first &- f >= 40 }, "\(summary)") }
            // Chromium sometimes sends a second keyframe of its own early on; when that keyframe comes right after
            // the loss (seen: 11091 after 40 lost from 11051; 16584 after 40 lost from 16543, one packet between
            // that belonged to no complete frame), no delta frame waits and no PLI is due. A missing PLI still fails:
            // Chromium's next keyframe of its own would come seconds later, far past these few packets.
            let unprompted = first.map { f in
                snapshot.frames.first.map { $0.key && (40...43).contains($0.first &- f) } ?? false
            } ?? false
            #expect(unprompted || (stats.keyFrameRequestsSent > 0 && after.pliCount > 0), "\(summary)")
            print("ChromiumLoss first key frame: \(summary)")
        } catch {
            await call.close()
            throw error
        }
        await call.close()
    }
}
