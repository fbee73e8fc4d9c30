import Foundation
import Testing
import TokKitNetworkLab
import TokKitProtocol
import TokKitServer
import TokKitTesting

@testable import TokKit

extension LiveServer {
    /// Whole-session media: churn in the middle of a stream, and a second process publishing.
    @Suite struct SessionMediaTests {
        @Test func fiftyCyclesOfChurnLeaveNoThreadOrDescriptorBehind() async throws {
            try await MediaTestKit.useTone()
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            // A stream that keeps running through the churn, watched by a long-lived subscriber.
            let p = try await MediaTestKit.pair(server)
            #expect(await eventually { p.renderer.frames >= 5 })
            let streamID = try #require(p.publisher.stream?.streamID)
            // Warm up once, so lazily created process-wide threads are counted in the baseline.
            try await Self.cycle(server, streamID: streamID, b: p.b, index: -1)
            #expect(await MediaTestKit.audioUsers(senders: 1, receivers: 1))
            let threads = MediaTestKit.threadCount(), descriptors = MediaTestKit.descriptorCount()
            let names = MediaTestKit.threadNames()

            for i in 0..<50 { try await Self.cycle(server, streamID: streamID, b: p.b, index: i) }

            #expect(await MediaTestKit.audioUsers(senders: 1, receivers: 1))
            // The original stream kept flowing.
            let before = p.renderer.frames
            #expect(await eventually { p.renderer.frames >= before + 5 })
            #expect(p.delegate.events == ["connected"])
            let settled = await eventually(timeout: .seconds(15)) {
                MediaTestKit.threadCount() <= threads && MediaTestKit.descriptorCount() <= descriptors
            }
            let now = "threads \(MediaTestKit.threadCount()) vs \(threads), fds \(MediaTestKit.descriptorCount()) vs "
                + "\(descriptors); threads now: \(MediaTestKit.threadNames()); before: \(names)"
            #expect(settled, "\(now)")
            await p.disconnect()
            #expect(await MediaTestKit.audioIdle())
        }

        /// One cycle: C connects, subscribes to the running stream, publishes its own, B subscribes to it, then
        /// everything is torn down in a varying order.
        static func cycle(_ server: TestServer, streamID: StreamID, b: Session, index: Int) async throws {
            let (c, _) = try await server.connected(media: true)
            let stream = try #require(await Self.stream(streamID, in: c))
            let watcher = CountingRenderer(), watcherEvents = SubscriberRecorder()
            let subscriber = Subscriber(stream: stream, videoRender: watcher, delegate: watcherEvents)
            try await c.subscribe(subscriber)
            let own = Publisher(name: "churn \(index)", videoCapture: PatternCapturer(width: 160, height: 120))
            try await c.publish(own)
            let ownID = try #require(own.stream?.streamID)
            let back = CountingRenderer(), backEvents = SubscriberRecorder()
            let backSubscriber = Subscriber(stream: try #require(await Self.stream(ownID, in: b)), videoRender: back,
                                            delegate: backEvents)
            try await b.subscribe(backSubscriber)
            if index % 5 == 0 {
                // Now and then, wait for media to really flow both ways before tearing down.
                #expect(await eventually { watcher.frames > 0 && watcherEvents.events == ["connected"] })
                #expect(await eventually { back.frames > 0 && backEvents.events == ["connected"] })
            }
            switch index % 3 {
            case 0:
                try await c.unsubscribe(subscriber)
                try await c.unpublish(own)
                await c.disconnect()
            case 1:
                try await c.unpublish(own)
                await c.disconnect()
            default:
                await c.disconnect()
            }
            #expect(await eventually { watcherEvents.events.last == "disconnected" }, "\(watcherEvents.events)")
            #expect(await eventually { backEvents.events.last == "disconnected" }, "\(backEvents.events)")
            #expect(!(watcherEvents.events + backEvents.events).contains { $0.hasPrefix("failed") })
        }

        static func stream(_ id: StreamID, in session: Session) async -> SessionStream? {
            _ = await eventually { session.streams[id] != nil }
            return session.streams[id]
        }

        @Test func aSecondProcessPublishesAndThisOneReceivesItsPictureAndTone() async throws {
            try await MediaTestKit.useTone()
            let meter = MediaTestKit.meter
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let peerPath = try #require(Self.helper("tokkit-test-peer"),
                                        "tokkit-test-peer is not built next to the tests: run `swift build --build-tests`")
            let (b, rb) = try await server.connected(media: true)

            let process = Process()
            process.executableURL = URL(fileURLWithPath: peerPath)
            process.arguments = [server.url, TestServer.apiKey, server.sessionID, try await server.token(), "320", "240", "30"]
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            let lines = LineCollector(output, name: "test-peer")
            defer { if process.isRunning { process.terminate() } }

            #expect(await eventually(timeout: .seconds(20)) { lines.lines.contains { $0.hasPrefix("published ") } },
                    "helper said: \(lines.lines)")
            let streams = await rb.wait(for: 1, timeout: .seconds(10)) { $0.streamCreated }
            let stream = try #require(streams.first)
            #expect(stream.name == "test-peer")
            let renderer = CountingRenderer(), delegate = SubscriberRecorder()
            let subscriber = Subscriber(stream: stream, videoRender: renderer, delegate: delegate)
            try await b.subscribe(subscriber)

            #expect(await eventually { delegate.events == ["connected"] })
            #expect(await eventually(timeout: .seconds(15)) { renderer.snapshot.patternFrames >= 30 },
                    "\(renderer.snapshot)")
            #expect(renderer.snapshot.width == 320 && renderer.snapshot.height == 240)
            // The flat, macroblock-aligned halves come through VP8 exactly here (infinite PSNR); 30 dB leaves room
            // for a starved encoder. TokKitStreamingTests measure PSNR on a harder, numbered colour-bar picture.
            let psnr = try #require(renderer.snapshot.lastPSNR)
            #expect(psnr > 30, "luma PSNR \(psnr) dB, lowest \(renderer.snapshot.lowestPSNR ?? 0) dB")
            print("two-process: luma PSNR last \(psnr) dB, lowest \(renderer.snapshot.lowestPSNR ?? 0) dB")
            #expect(await eventually { meter.soundPeriods >= 20 }, "sound periods \(meter.soundPeriods)")
            #expect(abs(meter.measuredFrequency - 440) < 20, "measured \(meter.measuredFrequency) Hz")

            // Closing its stdin makes the helper unpublish and leave.
            try input.fileHandleForWriting.close()
            #expect(await eventually { delegate.events.last == "disconnected" }, "\(delegate.events)")
            #expect(await eventually(timeout: .seconds(10)) { !process.isRunning })
            #expect(!process.isRunning && process.terminationStatus == 0, "helper said: \(lines.lines)")
            #expect(lines.lines.contains { $0.hasPrefix("done") })
            await b.disconnect()
            #expect(await MediaTestKit.audioIdle())
        }

        /// An executable built next to this test bundle.
        static func helper(_ name: String) -> String? {
            let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            let candidate = me.deletingLastPathComponent().appendingPathComponent(name).path
            return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
        }
    }
}
