import Synchronization
import Testing
import TokKitPeer
import TokKitProtocol
import TokKitServer

@_spi(Testing) @testable import TokKit
import TokKitTesting

extension LiveServer {
    /// The WebRTC negotiator through the real server: SDP offer/answer, trickled candidates, DTLS-SRTP, the
    /// subscriber connected at its first media packet, and peers closed when the subscription ends.
    @Suite struct WebRTCNegotiatorTests {
        /// A publishes, B subscribes; returns the publisher-side link once its peer is connected.
        static func subscribed(_ server: TestServer, wantsAudio: Bool = true, wantsVideo: Bool = true,
                               publishAudio: Bool = true) async throws
            -> (a: Session, b: Session, publisher: Publisher, subscriber: Subscriber, delegate: SubscriberRecorder,
                link: MediaLink)
        {
            let (a, _) = try await server.connected(media: true)
            let (b, _) = try await server.connected(media: true)
            let publisher = Publisher(name: "p", publishAudio: publishAudio)
            try await a.publish(publisher)
            let streamID = try #require(publisher.stream?.streamID)
            #expect(await eventually { b.streams[streamID] != nil })
            let delegate = SubscriberRecorder()
            let subscriber = Subscriber(stream: try #require(b.streams[streamID]), subscribeToAudio: wantsAudio,
                                        subscribeToVideo: wantsVideo, delegate: delegate)
            try await b.subscribe(subscriber)
            let negotiator = try #require(a.mediaNegotiator as? WebRTCNegotiator)
            #expect(await eventually { negotiator.allLinks.first?.peer?.state == .connected },
                    "publisher-side peer: \(String(describing: negotiator.allLinks.first?.peer?.state))")
            let link = try #require(negotiator.allLinks.first)
            return (a, b, publisher, subscriber, delegate, link)
        }

        /// The restart protocol in process (the network lab tests it with real path changes): the publisher's link
        /// told its path is lost replaces its peer and offers again; the subscriber answers with a new peer, reports
        /// reconnecting then reconnected, and media flows on the new pair. Same subscription, same Subscriber.
        @Test func aLostPathIsRestartedWithNewPeersAndTheSubscriberReportsIt() async throws {
            try await MediaTestKit.useTone()
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, b, _, subscriber, delegate, link) = try await Self.subscribed(server)
            // The hub yields to streams before it schedules the delegate: once the delegate heard `connected`, a
            // stream made now cannot see it.
            #expect(await eventually { delegate.events == ["connected"] })
            let events = StreamRecorder(subscriber.events, where: { !$0.isStatistics })
            let subscriberLink = try #require((b.mediaNegotiator as? WebRTCNegotiator)?.allLinks.first)
            #expect(await eventually { (subscriberLink.peer?.statistics(.audio).packetsReceived ?? 0) > 0 })
            let (oldPublisherPeer, oldSubscriberPeer) = (link.peer, subscriberLink.peer)
            let subscriberID = subscriber.subscriberID

            a.withNegotiator { _ in link.pathLost() }
            #expect(await eventually { events.all == [.reconnecting, .reconnected] }, "\(events.all)")
            #expect(link.restarts == 1 && subscriberLink.restarts == 1)
            #expect(link.peer !== oldPublisherPeer && subscriberLink.peer !== oldSubscriberPeer)
            #expect(oldPublisherPeer?.state == .closed && oldSubscriberPeer?.state == .closed)
            #expect(await eventually { (subscriberLink.peer?.statistics(.audio).packetsReceived ?? 0) > 0 })
            #expect(!link.isReconnecting && !subscriberLink.isReconnecting && !subscriber.isReconnecting)
            #expect(subscriber.subscriberID == subscriberID && subscriber.isConnected)
            await a.disconnect()
            await b.disconnect()
        }

        /// A media router's `mediaRestart` (Protocol.md 6.7 step 5) restarts the publisher's link only while its
        /// current peer is the one whose offer carried the named ICE ufrag: a wrong ufrag does nothing, the right
        /// one restarts once, and the same message again (now stale: the peer was replaced) does nothing.
        @Test func aRestartRequestIsIdempotentPerPeer() async throws {
            try await MediaTestKit.useTone()
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, b, _, _, _, link) = try await Self.subscribed(server)
            let offer = try #require(link.localDescription)
            let ufrag = try #require(MediaLink.iceUfrag(in: offer))
            let first = link.peer
            let wrong = await withCheckedContinuation { k in
                a.withNegotiator { _ in k.resume(returning: link.restartRequested(iceUfrag: ufrag + "x")) }
            }
            #expect(!wrong && link.restarts == 0 && link.peer === first)
            let right = await withCheckedContinuation { k in
                a.withNegotiator { _ in k.resume(returning: link.restartRequested(iceUfrag: ufrag)) }
            }
            #expect(right && link.restarts == 1 && link.peer !== first)
            let newUfrag = link.localDescription.flatMap(MediaLink.iceUfrag(in:))
            #expect(newUfrag != nil && newUfrag != ufrag, "a new peer has new ICE credentials")
            let stale = await withCheckedContinuation { k in
                a.withNegotiator { _ in k.resume(returning: link.restartRequested(iceUfrag: ufrag)) }
            }
            #expect(!stale && link.restarts == 1, "a duplicate restarts nothing")
            #expect(await eventually { link.peer?.state == .connected && !link.isReconnecting })
            await a.disconnect()
            await b.disconnect()
        }

        @Test func negotiatesAndConnectsTheSubscriberAtTheFirstMediaPacket() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            // No capturer and the audio off: nothing flows until the test sends a packet.
            let (a, b, publisher, subscriber, delegate, link) = try await Self.subscribed(server, publishAudio: false)
            #expect(link.context.side == .publisher && link.phase == .negotiated)
            #expect(publisher.media.peerCount == 1)
            let subscriberLink = try #require((b.mediaNegotiator as? WebRTCNegotiator)?.allLinks.first)
            #expect(await eventually { subscriberLink.peer?.state == .connected })
            // Negotiated, but no media yet: not connected.
            #expect(!subscriber.isConnected && delegate.events.isEmpty)

            let peer = try #require(link.peer)
            let payload = [UInt8](repeating: 0x10, count: 100)
            try payload.withUnsafeBytes { try peer.sendRTP(.video, payload: $0, timestamp: 1, marker: true) }
            #expect(await eventually { delegate.events == ["connected"] })
            #expect(subscriber.isConnected)
            #expect(subscriber.media.peer?.statistics(.video).packetsReceived == 1)

            try await b.unsubscribe(subscriber)
            #expect(await eventually { link.phase == .ended && subscriberLink.phase == .ended })
            #expect(await eventually { peer.state == .closed })
            #expect(await eventually { publisher.media.peerCount == 0 })
            #expect((a.mediaNegotiator as? WebRTCNegotiator)?.activeNegotiations == 0)
            await a.disconnect()
            await b.disconnect()
        }

        @Test func thePublisherOffersSendOnlyAndTheSubscriberAnswersRecvOnly() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, b, _, _, _, link) = try await Self.subscribed(server)
            let subscriberLink = try #require((b.mediaNegotiator as? WebRTCNegotiator)?.allLinks.first)
            let offer = try #require(link.localDescription), answer = try #require(subscriberLink.localDescription)
            /// The direction attribute of each m-section, in order.
            func directions(_ sdp: String) -> [String] {
                sdp.split(separator: "\r\n").split { $0.hasPrefix("m=") }.dropFirst().map { section in
                    section.first { ["a=sendrecv", "a=sendonly", "a=recvonly", "a=inactive"].contains($0) }
                        .map(String.init) ?? "(none)"
                }
            }
            #expect(offer.contains("\r\nm=audio ") && offer.contains("\r\nm=video "))
            #expect(directions(offer) == ["a=sendonly", "a=sendonly"], "\(offer)")
            #expect(directions(answer) == ["a=recvonly", "a=recvonly"], "\(answer)")
            #expect(link.peer?.configuration.receivesAudio == false && link.peer?.configuration.receivesVideo == false)
            await a.disconnect()
            await b.disconnect()
        }

        @Test func theSubscriberConnectsOnceAndOnlyWhenMediaFlows() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            // No capturer and the audio off: the publisher's pipelines send nothing; the test sends by hand.
            let (a, b, _, subscriber, delegate, link) = try await Self.subscribed(server, publishAudio: false)
            let subscriberLink = try #require((b.mediaNegotiator as? WebRTCNegotiator)?.allLinks.first)
            #expect(await eventually { subscriberLink.peer?.state == .connected })
            // DTLS-SRTP up and RTCP flowing (the publisher's sender reports), but no media: not connected.
            #expect(await eventually { (subscriberLink.peer?.statistics(.audio).senderReportsReceived ?? 0) >= 1 })
            #expect(!subscriber.isConnected && delegate.events.isEmpty)

            // Media of both kinds, many packets: one connected event.
            let peer = try #require(link.peer)
            let payload = [UInt8](repeating: 0x10, count: 100)
            for i in 0..<20 {
                try payload.withUnsafeBytes { try peer.sendRTP(.audio, payload: $0, timestamp: UInt32(i) * 960) }
                try payload.withUnsafeBytes {
                    try peer.sendRTP(.video, payload: $0, timestamp: UInt32(i) * 3000, marker: true)
                }
            }
            #expect(await eventually {
                subscriber.media.peer?.statistics(.video).packetsReceived == 20
                    && subscriber.media.peer?.statistics(.audio).packetsReceived == 20
            })
            #expect(await eventually { delegate.events == ["connected"] }, "\(delegate.events)")
            #expect(await PublisherMediaTests.settles { delegate.events.count })
            #expect(delegate.events == ["connected"], "\(delegate.events)")
            await a.disconnect()
            await b.disconnect()
        }

        @Test func offersOnlyTheKindsTheSubscriberWants() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, b, _, _, _, link) = try await Self.subscribed(server, wantsAudio: false, wantsVideo: true)
            let peer = try #require(link.peer)
            #expect(peer.configuration.audioSSRC == nil && peer.configuration.videoSSRC != nil)
            let payload = [UInt8](repeating: 0, count: 10)
            #expect(throws: PeerError.noSuchTrack(.audio)) {
                try payload.withUnsafeBytes { try peer.sendRTP(.audio, payload: $0, timestamp: 0) }
            }
            await a.disconnect()
            await b.disconnect()
        }

        @Test func aBadOfferFailsTheSubscriber() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, _) = try await server.connected()  // placeholder text instead of SDP
            let (b, _) = try await server.connected(media: true)
            let publisher = Publisher(name: "p")
            try await a.publish(publisher)
            let streamID = try #require(publisher.stream?.streamID)
            #expect(await eventually { b.streams[streamID] != nil })
            let delegate = SubscriberRecorder()
            let subscriber = Subscriber(stream: try #require(b.streams[streamID]), delegate: delegate)
            try await b.subscribe(subscriber)
            #expect(await eventually { delegate.events == ["failed(1011)", "disconnected"] }, "\(delegate.events)")
            // The SDP layer's error comes with it, typed.
            let error = try #require(delegate.errors.first)
            guard case .sdp? = error.cause else { Issue.record("cause: \(String(describing: error.cause))"); return }
            #expect(error.underlyingError is SDPError)
            #expect((b.mediaNegotiator as? WebRTCNegotiator)?.activeNegotiations == 0)
            await a.disconnect()
            await b.disconnect()
        }

        /// A DTLS failure reaches the app typed: the offer's certificate fingerprint is altered on its way to the
        /// subscriber, so the handshake finds that the publisher's certificate is not the one announced. The
        /// subscriber fails with `connectionFailed` (1006) whose cause is `DTLSError.fingerprintMismatch`.
        @Test func aForgedFingerprintFailsTheSubscriberWithTheDTLSError() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, _) = try await server.connected(media: true)
            let b = server.session(media: true)
            b.mediaNegotiator = FingerprintForgingNegotiator(WebRTCNegotiator())
            try await b.connect(token: try await server.token())
            let publisher = Publisher(name: "p")
            try await a.publish(publisher)
            let streamID = try #require(publisher.stream?.streamID)
            #expect(await eventually { b.streams[streamID] != nil })
            let delegate = SubscriberRecorder()
            let subscriber = Subscriber(stream: try #require(b.streams[streamID]), delegate: delegate)
            try await b.subscribe(subscriber)
            #expect(await eventually { delegate.events == ["failed(1006)", "disconnected"] }, "\(delegate.events)")
            let error = try #require(delegate.errors.first)
            #expect(error.cause == .dtls(.fingerprintMismatch), "\(error)")
            #expect(error.underlyingError as? DTLSError == .fingerprintMismatch)
            #expect(error.code == 1006)
            await a.disconnect()
            await b.disconnect()
        }
    }
}

/// A `WebRTCNegotiator` whose subscriber end receives offers with the last hex digit of the certificate
/// fingerprint changed (a man in the middle, as DTLS-SRTP must detect).
final class FingerprintForgingNegotiator: MediaNegotiator {
    private let inner: WebRTCNegotiator
    init(_ inner: WebRTCNegotiator) { self.inner = inner }

    func negotiationDidStart(_ context: MediaNegotiationContext, channel: NegotiationChannel) {
        inner.negotiationDidStart(context, channel: channel)
    }

    func negotiation(_ context: MediaNegotiationContext, didReceive message: NegotiationMessage,
                     channel: NegotiationChannel) {
        var message = message
        if message.kind == .offer { message.payload = Self.forge(message.payload) }
        inner.negotiation(context, didReceive: message, channel: channel)
    }

    func negotiationDidEnd(_ context: MediaNegotiationContext) { inner.negotiationDidEnd(context) }

    static func forge(_ sdp: String) -> String {
        sdp.split(separator: "\r\n" as Character, omittingEmptySubsequences: false).map { line in
            guard line.hasPrefix("a=fingerprint:"), let last = line.last else { return String(line) }
            return line.dropLast() + (last == "0" ? "1" : "0")
        }.joined(separator: "\r\n")
    }
}
