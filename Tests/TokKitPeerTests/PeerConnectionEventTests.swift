import Synchronization
import Testing
import TokKitPeer
import TokKitSDP

/// ``PeerConnectionEvent/firstMediaPacket(_:)``: once per received section, only after media arrived; and the
/// directions a send-only offerer and a receive-only answerer negotiate (``PeerConfiguration/receivesAudio``).
@Suite("PeerConnectionEvent") struct PeerConnectionEventTests {
    /// Every event of one peer, plus the peer's received-packet count at the moment each first-media event was
    /// taken from the stream.
    final class Recorder: Sendable {
        let events = Mutex<[PeerConnectionEvent]>([])
        let packetsAtFirstMedia = Mutex<[MediaKind: UInt64]>([:])

        func firstMedia(_ kind: MediaKind) -> Int {
            events.withLock { $0.filter { $0 == .firstMediaPacket(kind) }.count }
        }
    }

    /// Trickles `from`'s candidates to `to` and records all of `from`'s events until its stream finishes.
    static func follow(_ from: PeerConnection, to: PeerConnection, into recorder: Recorder) -> Task<Void, Never> {
        Task {
            for await event in from.events {
                recorder.events.withLock { $0.append(event) }
                switch event {
                case .localCandidate(let c): try? to.addRemoteCandidate(c)
                case .gatheringComplete: try? to.addRemoteEndOfCandidates()
                case .firstMediaPacket(let kind):
                    let received = from.statistics(kind).packetsReceived
                    recorder.packetsAtFirstMedia.withLock { $0[kind] = received }
                case .stateChanged: break
                }
            }
        }
    }

    static func send(_ peer: PeerConnection, _ kind: MediaKind, count: Int) throws {
        let payload = [UInt8](repeating: 0x42, count: kind == .audio ? 160 : 1000)
        for i in 0..<count {
            try payload.withUnsafeBytes {
                try peer.sendRTP(kind, payload: $0, timestamp: UInt32(i) * (kind == .audio ? 960 : 3000),
                                 marker: kind == .video)
            }
        }
    }

    /// A publisher-like offerer (sends both kinds, receives nothing) and a subscriber-like answerer.
    static func publisherAndSubscriber() throws -> (PeerConnection, PeerConnection, SessionDescription,
                                                    SessionDescription) {
        let publisher = try PeerConnection(configuration: PeerConfiguration(
            audioSSRC: 0x1111, videoSSRC: 0x2222, rtcpInterval: .milliseconds(100), receivesAudio: false,
            receivesVideo: false))
        let subscriber = try PeerConnection(configuration: PeerConfiguration(
            audioSSRC: nil, videoSSRC: nil, rtcpInterval: .milliseconds(100)))
        let offer = try SessionDescription(parsing: try publisher.createOffer().sdp)
        let answer = try SessionDescription(parsing: try subscriber.createAnswer(for: offer).sdp)
        try publisher.setRemoteDescription(answer)
        return (publisher, subscriber, offer, answer)
    }

    @Test func aSendOnlyOfferGetsARecvOnlyAnswer() throws {
        let (publisher, subscriber, offer, answer) = try Self.publisherAndSubscriber()
        defer { publisher.close(); subscriber.close() }
        #expect(offer.media.map(\.kind) == ["audio", "video"])
        #expect(offer.media.map(\.effectiveDirection) == [.sendonly, .sendonly], "\(offer.sdp)")
        #expect(answer.media.map(\.effectiveDirection) == [.recvonly, .recvonly], "\(answer.sdp)")
        // The SDP text itself says so (what a browser reads).
        func lines(_ sdp: String, _ line: String) -> Int { sdp.split(separator: "\r\n").filter { $0 == line }.count }
        #expect(lines(offer.sdp, "a=sendonly") == 2 && lines(offer.sdp, "a=sendrecv") == 0)
        #expect(lines(answer.sdp, "a=recvonly") == 2 && lines(answer.sdp, "a=sendrecv") == 0)
    }

    @Test func directionsFollowTheSSRCsAndTheReceiveFlags() throws {
        func offer(_ configuration: PeerConfiguration) throws -> [SDPDirection] {
            let peer = try PeerConnection(configuration: configuration)
            defer { peer.close() }
            return try SessionDescription(parsing: try peer.createOffer().sdp).media.map(\.effectiveDirection)
        }
        #expect(try offer(PeerConfiguration(audioSSRC: 1, videoSSRC: 2)) == [.sendrecv, .sendrecv])
        #expect(try offer(PeerConfiguration(audioSSRC: nil, videoSSRC: nil)) == [.recvonly, .recvonly])
        #expect(try offer(PeerConfiguration(audioSSRC: nil, videoSSRC: 2, receivesAudio: false, receivesVideo: false))
                == [.inactive, .sendonly])
    }

    @Test func firstMediaPacketComesOncePerKindAfterMediaAndNeverWithoutIt() async throws {
        let (publisher, subscriber, _, _) = try Self.publisherAndSubscriber()
        let atPublisher = Recorder(), atSubscriber = Recorder()
        let pumps = [Self.follow(publisher, to: subscriber, into: atPublisher),
                     Self.follow(subscriber, to: publisher, into: atSubscriber)]
        #expect(await PeerConnectionTests.poll { publisher.state == .connected && subscriber.state == .connected },
                "publisher \(publisher.state), subscriber \(subscriber.state)")

        // Connected, the publisher's sender reports arriving (every 100 ms), but no media: no event.
        #expect(await PeerConnectionTests.poll { subscriber.statistics(.audio).senderReportsReceived >= 3 })
        #expect(atSubscriber.firstMedia(.audio) == 0 && atSubscriber.firstMedia(.video) == 0)

        // Audio flows: one audio event, no video event.
        try Self.send(publisher, .audio, count: 20)
        #expect(await PeerConnectionTests.poll { subscriber.statistics(.audio).packetsReceived == 20 })
        #expect(await PeerConnectionTests.poll { atSubscriber.firstMedia(.audio) == 1 })
        #expect(atSubscriber.firstMedia(.video) == 0)

        // Then video: one video event.
        try Self.send(publisher, .video, count: 20)
        #expect(await PeerConnectionTests.poll { subscriber.statistics(.video).packetsReceived == 20 })
        #expect(await PeerConnectionTests.poll { atSubscriber.firstMedia(.video) == 1 })

        // More media adds no event; closing finishes the streams, so the counts below are final.
        try Self.send(publisher, .audio, count: 20)
        try Self.send(publisher, .video, count: 20)
        #expect(await PeerConnectionTests.poll { subscriber.statistics(.video).packetsReceived == 40 })
        publisher.close()
        subscriber.close()
        for pump in pumps { await pump.value }
        #expect(atSubscriber.firstMedia(.audio) == 1 && atSubscriber.firstMedia(.video) == 1,
                "\(atSubscriber.events.withLock { $0 })")
        // The event came after the packet was counted.
        #expect(atSubscriber.packetsAtFirstMedia.withLock { $0 }.values.allSatisfy { $0 >= 1 })
        #expect(atSubscriber.packetsAtFirstMedia.withLock { $0.count } == 2)
        // The sender received only RTCP: no media event.
        #expect(atPublisher.firstMedia(.audio) == 0 && atPublisher.firstMedia(.video) == 0)
    }
}
