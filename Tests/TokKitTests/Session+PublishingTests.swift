import Synchronization
import Testing
import TokKitProtocol
import TokKitServer

@_spi(Testing) @testable import TokKit
import TokKitTesting

extension LiveServer {
    /// The publisher/subscriber registry and the negotiation relay, through the real server.
    @Suite struct SessionPublishingTests {
        @Test func publishAnnouncesTheStreamWithItsFields() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, ra) = try await server.connected(data: "A")
            let (b, rb) = try await server.connected(data: "B")
            let pubDelegate = PublisherRecorder()
            let publisher = Publisher(
                name: "Alice cam", publishAudio: true, publishVideo: false, videoType: .screen,
                videoDimensions: VideoDimensions(width: 640, height: 480), delegate: pubDelegate)

            try await a.publish(publisher)
            let mine = try #require(publisher.stream)
            #expect(mine.name == "Alice cam")
            #expect(mine.connection.connectionID == a.connection?.connectionID)
            #expect(publisher.session === a)
            #expect(await eventually { pubDelegate.events == ["streamCreated"] })

            let seen = try #require(await rb.wait(for: 1) { $0.streamCreated }.first)
            #expect(seen.streamID == mine.streamID)
            #expect(seen.connection.connectionID == a.connection?.connectionID)
            #expect(seen.connection.data == "A")
            #expect(seen.name == "Alice cam")
            #expect(seen.hasAudio == true && seen.hasVideo == false)
            #expect(seen.videoType == .screen)
            #expect(seen.videoDimensions == VideoDimensions(width: 640, height: 480))
            #expect(b.streams[mine.streamID] == seen)
            // The publisher's own session lists only others' streams and reports no streamCreated for its own.
            #expect(a.streams.isEmpty)
            #expect(ra.all.compactMap(\.streamCreated).isEmpty)

            // A late joiner sees the stream right after the connection that publishes it.
            let (c, rc) = try await server.connected()
            #expect(await rc.wait { $0.map(\.name) == ["connected", "connectionCreated", "connectionCreated", "streamCreated"] })
            #expect(c.streams[mine.streamID]?.name == "Alice cam")
            for s in [a, b, c] { await s.disconnect() }
        }

        @Test func togglingAudioAndVideoChangesTheStreamForEveryone() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, ra) = try await server.connected()
            let (b, rb) = try await server.connected()
            let publisher = Publisher(name: "p")
            try await a.publish(publisher)
            let streamID = try #require(publisher.stream?.streamID)
            _ = await rb.wait(for: 1) { $0.streamCreated }

            publisher.publishAudio = false
            publisher.publishVideo = false
            publisher.publishAudio = true
            let expected: [StreamPropertyChange] = [.hasAudio(false), .hasVideo(false), .hasAudio(true)]
            for r in [ra, rb] {
                let changes = await r.wait(for: 3) { $0.propertyChange }
                #expect(changes.map(\.1) == expected)
                #expect(changes.allSatisfy { $0.0.streamID == streamID })
                #expect(changes.last?.0.hasAudio == true && changes.last?.0.hasVideo == false)
            }
            #expect(b.streams[streamID]?.hasVideo == false)
            #expect(b.streams[streamID]?.hasAudio == true)
            #expect(await eventually { publisher.stream?.hasVideo == false })
            // Setting the same value again sends nothing.
            publisher.publishVideo = false
            try await a.signal(type: "marker", data: "")
            _ = await rb.wait(for: 1) { $0.signal }
            #expect(rb.all.compactMap(\.propertyChange).count == 3)
            await a.disconnect()
            await b.disconnect()
        }

        @Test func unpublishAndDisconnectRemoveTheStream() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, _) = try await server.connected()
            let (b, rb) = try await server.connected()
            let pubDelegate = PublisherRecorder()
            let publisher = Publisher(name: "one", delegate: pubDelegate)
            try await a.publish(publisher)
            let first = try #require(publisher.stream)

            try await a.unpublish(publisher)
            #expect(publisher.stream == nil && publisher.session == nil)
            #expect(await rb.wait(for: 1) { $0.streamDestroyed }.map(\.streamID) == [first.streamID])
            #expect(b.streams.isEmpty)
            #expect(await eventually { pubDelegate.events == ["streamCreated", "streamDestroyed"] })
            await #expect(throws: SessionError.publisherNotFound) { try await a.unpublish(publisher) }

            // Published again, then the publisher's client leaves: stream destroyed, then connection destroyed.
            try await a.publish(publisher)
            let second = try #require(publisher.stream)
            #expect(second.streamID != first.streamID)
            // Clear B's log only once its recorder has the second streamCreated (the stream delivers it
            // asynchronously, after the session's state already shows the stream).
            let secondID = second.streamID
            #expect(await rb.wait { $0.compactMap(\.streamCreated).contains { $0.streamID == secondID } })
            rb.clear()
            await a.disconnect()
            #expect(await rb.wait { $0.map(\.name) == ["streamDestroyed", "connectionDestroyed"] })
            #expect(publisher.stream == nil)
            #expect(await eventually { pubDelegate.events.suffix(2) == ["streamCreated", "streamDestroyed"] })
            #expect(await eventually { await server.server.stats().streams == 0 })
            await b.disconnect()
        }

        @Test func subscribeRelaysTheNegotiationBetweenTheRightPeers() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, _) = try await server.connected()
            let (b, _) = try await server.connected()
            let (c, _) = try await server.connected()
            let na = RecordingNegotiator(), nb = RecordingNegotiator(), nc = RecordingNegotiator()
            a.mediaNegotiator = na
            b.mediaNegotiator = nb
            c.mediaNegotiator = nc
            let publisher = Publisher(name: "p")
            try await a.publish(publisher)
            let stream = try #require(publisher.stream)
            let aID = a.connection!.connectionID, bID = b.connection!.connectionID

            let subDelegate = SubscriberRecorder()
            #expect(await eventually { b.streams[stream.streamID] != nil })
            let subscriber = Subscriber(stream: try #require(b.streams[stream.streamID]), delegate: subDelegate)
            try await b.subscribe(subscriber)
            let subscriberID = try #require(subscriber.subscriberID)

            // B (subscriber side) gets A's offer; A (publisher side) gets B's answer; then B is connected.
            #expect(await eventually { subDelegate.events == ["connected"] })
            #expect(subscriber.isConnected)
            let atB = nb.all, atA = na.all
            let subscriberSide = MediaNegotiationContext(
                side: .subscriber, streamID: stream.streamID, subscriberID: subscriberID, peerConnectionID: aID,
                wantsAudio: true, wantsVideo: true)
            let publisherSide = MediaNegotiationContext(
                side: .publisher, streamID: stream.streamID, subscriberID: subscriberID, peerConnectionID: bID,
                wantsAudio: true, wantsVideo: true)
            #expect(atB == [.started(subscriberSide),
                            .received(subscriberSide, .init(kind: .offer, payload: "placeholder-offer \(stream.streamID)"))])
            #expect(await eventually { na.all.count == 2 })
            #expect(na.all == [.started(publisherSide),
                               .received(publisherSide, .init(kind: .answer, payload: "placeholder-answer \(stream.streamID)"))])
            _ = atA
            // C, not part of the subscription, saw nothing of it.
            #expect(nc.all.isEmpty)

            // Unsubscribe: both ends end their negotiation; the subscriber's delegate hears it.
            try await b.unsubscribe(subscriber)
            #expect(await eventually { na.all.last == .ended(publisherSide) })
            #expect(nb.all.last == .ended(subscriberSide))
            #expect(await eventually { subDelegate.events == ["connected", "disconnected"] })
            await #expect(throws: SessionError.subscriberNotFound) { try await b.unsubscribe(subscriber) }
            for s in [a, b, c] { await s.disconnect() }
        }

        @Test func unsubscribingASubscriberWhoseMediaFailedSucceeds() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, _) = try await server.connected()
            let (b, _) = try await server.connected()
            a.mediaNegotiator = PlaceholderNegotiator()
            b.mediaNegotiator = FailingNegotiator()
            let publisher = Publisher(name: "p")
            try await a.publish(publisher)
            let streamID = try #require(publisher.stream?.streamID)
            #expect(await eventually { b.streams[streamID] != nil })
            let subDelegate = SubscriberRecorder()
            let subscriber = Subscriber(stream: try #require(b.streams[streamID]), delegate: subDelegate)
            try await b.subscribe(subscriber)
            // The media fails (as ICE between unreachable hosts does): the subscriber reports it and is gone.
            #expect(await eventually { subDelegate.events == ["failed(1006)", "disconnected"] })
            #expect(subscriber.subscriberID == nil)
            // The app's usual cleanup must not throw at it.
            try await b.unsubscribe(subscriber)
            // A subscriber that never belonged to this session still is an error.
            let stranger = Subscriber(stream: try #require(b.streams[streamID]))
            await #expect(throws: SessionError.subscriberNotFound) { try await b.unsubscribe(stranger) }
            #expect(subDelegate.events == ["failed(1006)", "disconnected"])
            for s in [a, b] { await s.disconnect() }
        }

        @Test func subscriberHearsVideoToggles() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, _) = try await server.connected()
            let (b, _) = try await server.connected()
            let publisher = Publisher(name: "p")
            try await a.publish(publisher)
            let streamID = try #require(publisher.stream?.streamID)
            #expect(await eventually { b.streams[streamID] != nil })
            let subDelegate = SubscriberRecorder()
            let subscriber = Subscriber(stream: b.streams[streamID]!, delegate: subDelegate)
            let events = StreamRecorder(subscriber.events, where: { !$0.isStatistics })
            try await b.subscribe(subscriber)
            #expect(await eventually { subDelegate.events == ["connected"] })

            publisher.publishVideo = false
            #expect(await eventually { subDelegate.events.last == "videoDisabled(publisherPropertyChanged)" })
            #expect(subscriber.stream.hasVideo == false)
            publisher.publishVideo = true
            #expect(await eventually { subDelegate.events.last == "videoEnabled(publisherPropertyChanged)" })
            subscriber.subscribeToVideo = false
            #expect(await eventually { subDelegate.events.last == "videoDisabled(subscriberPropertyChanged)" })

            // The stream ends: the subscriber is disconnected.
            try await a.unpublish(publisher)
            #expect(await eventually { subDelegate.events.last == "disconnected" })
            #expect(subscriber.subscriberID == nil)
            // subscriber.events saw the same, in the same order, and ended after disconnected; a stream asked for
            // afterwards is already over.
            #expect(await eventually { events.ended })
            #expect(events.all.map(\.name) == subDelegate.events, "stream \(events.all.map(\.name))")
            let late = StreamRecorder(subscriber.events, where: { !$0.isStatistics })
            #expect(await eventually { late.ended } && late.all.isEmpty)
            await a.disconnect()
            await b.disconnect()
        }

        @Test func subscribingToAVanishedStreamIsStreamNotFound() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, _) = try await server.connected()
            let (b, _) = try await server.connected()
            let publisher = Publisher(name: "p")
            try await a.publish(publisher)
            let stream = try #require(publisher.stream)
            #expect(await eventually { b.streams[stream.streamID] != nil })
            try await a.unpublish(publisher)
            #expect(await eventually { b.streams.isEmpty })
            let subscriber = Subscriber(stream: stream)
            await #expect(throws: SessionError.streamNotFound(stream.streamID.rawValue)) { try await b.subscribe(subscriber) }
            await a.disconnect()
            await b.disconnect()
        }

        // MARK: Roles

        @Test func roleMatrixAsSeenFromTheClient() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (owner, _) = try await server.connected(role: .publisher)
            let ownerPublisher = Publisher(name: "owner")
            try await owner.publish(ownerPublisher)
            let stream = try #require(ownerPublisher.stream)

            // subscriber: may subscribe, may not publish or signal.
            let (sub, _) = try await server.connected(role: .subscriber)
            #expect(sub.capabilities == SessionCapabilities(
                canPublish: false, canSubscribe: true, canSignal: false, canForceMute: false, canForceDisconnect: false))
            await expectCode(1500) { try await sub.publish(Publisher()) }
            await expectCode(1520) { try await sub.signal(type: "t", data: "") }
            #expect(await eventually { sub.streams[stream.streamID] != nil })
            try await sub.subscribe(Subscriber(stream: sub.streams[stream.streamID]!))
            // The server refuses too, when asked directly.
            await expectCode(1500) { _ = try await sub.request(.publish(.init()), purpose: .other).get() }
            await expectCode(1520) { _ = try await sub.request(.signal(.init()), purpose: .signal(retry: false)).get() }

            // publisher-only: may publish, may not subscribe or signal.
            let (po, _) = try await server.connected(role: .publisherOnly)
            #expect(po.capabilities.canPublish && !po.capabilities.canSubscribe && !po.capabilities.canSignal)
            try await po.publish(Publisher(name: "po"))
            #expect(await eventually { po.streams[stream.streamID] != nil })
            await expectCode(1600) { try await po.subscribe(Subscriber(stream: po.streams[stream.streamID]!)) }
            await expectCode(1600) {
                _ = try await po.request(.subscribe(.init(streamID: stream.streamID.rawValue)), purpose: .other).get()
            }

            // publisher: no moderation.
            await expectCode(1530) { try await owner.forceDisconnect(sub.connection!) }
            await expectCode(1540) { try await owner.forceMute(stream) }
            await expectCode(1530) {
                _ = try await owner.request(.forceDisconnect(.init(connectionID: sub.connection!.connectionID.rawValue)),
                                        purpose: .other).get()
            }

            // moderator: everything.
            let (mod, _) = try await server.connected(role: .moderator)
            #expect(mod.capabilities == SessionCapabilities(
                canPublish: true, canSubscribe: true, canSignal: true, canForceMute: true, canForceDisconnect: true))
            for s in [owner, sub, po, mod] { await s.disconnect() }
        }

        @Test func moderatorForceMuteAndForceDisconnect() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, ra) = try await server.connected()
            let (b, rb) = try await server.connected()
            let (mod, _) = try await server.connected(role: .moderator)
            let publisher = Publisher(name: "p")
            try await a.publish(publisher)
            let stream = try #require(publisher.stream)
            #expect(await eventually { mod.streams[stream.streamID] != nil })

            try await mod.forceMute(mod.streams[stream.streamID]!)
            #expect(await ra.wait(for: 1) { if case .muteForced(let i) = $0 { i } else { nil } }.first?.active == true)
            #expect(await eventually { !publisher.publishAudio })
            #expect(await rb.wait(for: 1) { $0.propertyChange }.first?.1 == .hasAudio(false))

            // Force disconnect is final: A is disconnected, not reconnecting; B sees A leave.
            try await mod.forceDisconnect(a.connection!)
            #expect(await ra.wait { $0.last?.isDisconnected == true })
            #expect(!ra.all.contains { $0.isReconnecting })
            #expect(a.sessionConnectionStatus == .notConnected)
            #expect(await rb.wait(for: 1) { $0.connectionDestroyed }.count == 1)
            await b.disconnect()
            await mod.disconnect()
        }

        private func expectCode(_ code: Int, sourceLocation: SourceLocation = #_sourceLocation,
                                _ body: () async throws -> Void) async {
            do {
                try await body()
                Issue.record("expected error \(code), got success", sourceLocation: sourceLocation)
            } catch let error as SessionError {
                #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
            } catch {
                Issue.record("expected a SessionError, got \(error)", sourceLocation: sourceLocation)
            }
        }
    }
}

/// Records publisher delegate calls.
final class PublisherRecorder: PublisherDelegate {
    private let calls = Mutex<[String]>([])
    var events: [String] { calls.withLock { $0 } }
    func publisher(_ publisher: Publisher, streamCreated stream: SessionStream) { calls.withLock { $0.append("streamCreated") } }
    func publisher(_ publisher: Publisher, streamDestroyed stream: SessionStream) {
        calls.withLock { $0.append("streamDestroyed") }
    }
    func publisher(_ publisher: Publisher, didFailWithError error: SessionError) {
        calls.withLock { $0.append("failed(\(error.code))") }
    }
}

/// Records subscriber delegate calls.
final class SubscriberRecorder: SubscriberDelegate {
    private let calls = Mutex<[String]>([])
    private let failures = Mutex<[SessionError]>([])
    var events: [String] { calls.withLock { $0 } }
    /// The errors `subscriber(_:didFailWithError:)` reported, in order.
    var errors: [SessionError] { failures.withLock { $0 } }
    func subscriberDidConnect(toStream subscriber: Subscriber) { calls.withLock { $0.append("connected") } }
    func subscriberDidDisconnect(fromStream subscriber: Subscriber) { calls.withLock { $0.append("disconnected") } }
    func subscriber(_ subscriber: Subscriber, didFailWithError error: SessionError) {
        failures.withLock { $0.append(error) }
        calls.withLock { $0.append("failed(\(error.code))") }
    }
    func subscriberVideoDisabled(_ subscriber: Subscriber, reason: SubscriberVideoEventReason) {
        calls.withLock { $0.append("videoDisabled(\(reason))") }
    }
    func subscriberVideoEnabled(_ subscriber: Subscriber, reason: SubscriberVideoEventReason) {
        calls.withLock { $0.append("videoEnabled(\(reason))") }
    }
}

/// A negotiator whose subscriber side fails as soon as the offer arrives (what ICE between unreachable hosts
/// ends in), and whose publisher side behaves like ``PlaceholderNegotiator``.
final class FailingNegotiator: MediaNegotiator {
    private let placeholder = PlaceholderNegotiator()
    func negotiationDidStart(_ context: MediaNegotiationContext, channel: NegotiationChannel) {
        placeholder.negotiationDidStart(context, channel: channel)
    }
    func negotiation(_ context: MediaNegotiationContext, didReceive message: NegotiationMessage,
                     channel: NegotiationChannel) {
        guard context.side == .subscriber, message.kind == .offer else { return }
        channel.reportFailed(.connectionFailed("the media connection failed (ICE or DTLS)"))
    }
    func negotiationDidEnd(_ context: MediaNegotiationContext) {}
}
