import Synchronization
import Testing
import TokKitPeer
import TokKitRTP
import TokKitTesting

@_spi(Recording) @testable import TokKit

/// Counts what an ``EncodedMediaReceiver`` is given, and asks for a key frame once video flows.
final class PacketCounter: EncodedMediaReceiver {
    struct Counts {
        var audio = 0, video = 0, keyFrameStarts = 0, keyFramesAfterRequest = 0
        var starts = 0, stops = 0
        var requested = false
        var source: EncodedMediaSource?
    }

    let counts = Mutex(Counts())

    func encodedMediaDidStart(_ source: EncodedMediaSource) {
        counts.withLock { $0.starts += 1; $0.source = source }
    }

    func receive(_ packet: borrowing RTPPacketView, kind: MediaKind) {
        guard kind == .video else { return counts.withLock { $0.audio += 1 } }
        var keyFrame = false
        if let d = try? VP8PayloadDescriptor(parsing: packet.payload), d.startOfPartition, d.partitionIndex == 0 {
            let rest = UnsafeRawBufferPointer(rebasing: packet.payload[d.serializedLength...])
            keyFrame = (try? VP8PayloadHeader(parsing: rest))?.isKeyFrame ?? false
        }
        let ask: EncodedMediaSource? = counts.withLock { c in
            c.video += 1
            if keyFrame { c.keyFrameStarts += 1; if c.requested { c.keyFramesAfterRequest += 1 } }
            guard !c.requested, c.video >= 30 else { return nil }
            return c.source
        }
        if let ask, ask.requestKeyframe() { counts.withLock { $0.requested = true } }
    }

    func encodedMediaDidStop(_ source: EncodedMediaSource) {
        counts.withLock { c in
            c.stops += 1
            if let current = c.source, current.isSame(as: source) { c.source = nil }
        }
    }

    var snapshot: Counts { counts.withLock { $0 } }
}

extension LiveServer {
    @Suite struct EncodedMediaReceiverTests {
        /// A subscriber made with a receiver gets the publisher's RTP, audio and video, undecoded; its key frame
        /// request reaches the publisher's encoder; unsubscribing stops the packets.
        @Test func aReceiverGetsTheStreamsRTPAndCanAskForAKeyFrame() async throws {
            try await MediaTestKit.useTone()
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, _) = try await server.connected(media: true)
            let (b, _) = try await server.connected(media: true)
            let publisher = Publisher(name: "pattern", videoCapture: PatternCapturer(width: 320, height: 240, framesPerSecond: 30))
            try await a.publish(publisher)
            let streamID = try #require(publisher.stream?.streamID)
            #expect(await eventually { b.streams[streamID] != nil })
            let counter = PacketCounter(), delegate = SubscriberRecorder()
            let subscriber = Subscriber(stream: try #require(b.streams[streamID]), receiver: counter, delegate: delegate)
            try await b.subscribe(subscriber)

            #expect(await eventually { delegate.events.contains("connected") })
            // The publisher's encoder makes a periodic key frame only every 3000 frames (100 s at 30 fps, its
            // default), so a key frame within these 20 s after the first comes from the request.
            #expect(await eventually(timeout: .seconds(20)) { counter.snapshot.keyFramesAfterRequest >= 1 },
                    "\(counter.snapshot)")
            let seen = counter.snapshot
            #expect(seen.starts == 1 && seen.stops == 0)
            #expect(seen.audio > 10 && seen.video > 30, "\(seen)")
            #expect(seen.keyFrameStarts >= 2, "the first key frame and the requested one")
            #expect(subscriber.statistics.video.framesDecoded == 0, "nothing is decoded")

            try await b.unsubscribe(subscriber)
            #expect(await eventually { counter.snapshot.stops == 1 })
            let after = counter.snapshot
            try await Task.sleep(for: .milliseconds(300))
            #expect(counter.snapshot.video == after.video && counter.snapshot.audio == after.audio, "packets after stop")
            await a.disconnect()
            await b.disconnect()
        }
    }
}
