import Synchronization
import Testing
import TokKitTesting
import TokKitStreaming

@testable import TokKit

extension LiveServer {
    /// Publisher → subscriber media through the facade: real capture, VP8/Opus, DTLS-SRTP over 127.0.0.1.
    @Suite struct PublisherMediaTests {
        @Test func framesArriveAtTheRightSizeWithThePicture() async throws {
            try await MediaTestKit.useTone()
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let p = try await MediaTestKit.pair(server)

            #expect(await eventually { p.delegate.events == ["connected"] }, "\(p.delegate.events)")
            #expect(p.subscriber.isConnected)
            #expect(await eventually { p.renderer.snapshot.patternFrames >= 20 }, "\(p.renderer.snapshot)")
            let seen = p.renderer.snapshot
            #expect(seen.width == 320 && seen.height == 240)
            // The publisher previews its own video through its renderer.
            #expect(p.preview.frames > 0 && p.preview.snapshot.width == 320)

            let sent = p.publisher.statistics, received = p.subscriber.statistics
            #expect(sent.video.framesEncoded > 0 && sent.video.peers == 1 && sent.video.packetsSent > 0)
            #expect(received.video.framesDecoded > 0 && received.videoTrack.packetsReceived > 0)
            #expect(received.video.width == 320 && received.video.height == 240)

            await p.disconnect()
            #expect(await MediaTestKit.audioIdle())
        }

        /// The publisher's audio settings reach its encoder: the packets shrink to the bitrate asked for.
        @Test func audioBitrateAndDTXReachTheEncoder() async throws {
            try await MediaTestKit.useTone()
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let p = try await MediaTestKit.pair(server, audioBitrate: 12_000, opusDTX: true)
            #expect(p.publisher.media.audioSettings == AudioEncodeSettings(bitrate: 12_000, dtx: true))
            #expect(await eventually { p.subscriber.statistics.audio.packetsDecoded >= 50 })
            let audio = p.publisher.statistics.audio
            // 12 kbit/s is 30 bytes a packet (the default 32 kbit/s would be 80); the tone never pauses.
            let bytesPerPacket = Double(audio.bytesEncoded) / Double(max(audio.packetsEncoded, 1))
            #expect(bytesPerPacket > 10 && bytesPerPacket < 40, "\(bytesPerPacket) bytes a packet")
            #expect(audio.packetsSuppressed == 0)
            await p.disconnect()
            #expect(p.publisher.media.audioSettings == nil)
            #expect(await MediaTestKit.audioIdle())
        }

        /// The tone device plays a peak of 8000 (level 0.24); muting either side silences its meter.
        @Test func audioLevelsFollowTheToneAndTheMutes() async throws {
            try await MediaTestKit.useTone()
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let p = try await MediaTestKit.pair(server)
            let loud: @Sendable (Float) -> Bool = { $0 > 0.15 && $0 < 0.35 }
            #expect(await eventually { loud(p.publisher.audioLevel) && loud(p.subscriber.audioLevel) },
                    "publisher \(p.publisher.audioLevel), subscriber \(p.subscriber.audioLevel)")

            p.subscriber.subscribeToAudio = false
            #expect(await eventually { p.subscriber.audioLevel == 0 }, "\(p.subscriber.audioLevel)")
            #expect(await eventually { loud(p.publisher.audioLevel) }, "the publisher's meter does not depend on the subscriber")
            p.subscriber.subscribeToAudio = true
            #expect(await eventually { loud(p.subscriber.audioLevel) })

            p.publisher.publishAudio = false
            #expect(await eventually { p.publisher.audioLevel == 0 && p.subscriber.audioLevel == 0 },
                    "publisher \(p.publisher.audioLevel), subscriber \(p.subscriber.audioLevel)")
            await p.disconnect()
            #expect(p.publisher.audioLevel == 0 && p.subscriber.audioLevel == 0)
            #expect(await MediaTestKit.audioIdle())
        }

        @Test func anAudioBitrateOutOfRangeFailsThePublishAndStartsNothing() async throws {
            try await MediaTestKit.useTone()
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, _) = try await server.connected(media: true)
            let (b, _) = try await server.connected(media: true)
            let capturer = PatternCapturer(width: 320, height: 240, framesPerSecond: 30)
            let publisher = Publisher(name: "loud", videoCapture: capturer, audioBitrate: 600_000)
            do {
                try await a.publish(publisher)
                Issue.record("published with an audio bitrate of 600 kbit/s")
            } catch {
                #expect(error.code == 1500 && "\(error)".contains("audio bitrate"), "\(error)")
            }
            #expect(publisher.stream == nil && publisher.session == nil && publisher.media.phase == .idle)
            try await Task.sleep(for: .milliseconds(200))  // a started capturer would have delivered ~6 frames
            #expect(capturer.framesDelivered == 0)
            #expect(await MediaTestKit.audioIdle())
            // Nobody saw a stream; the session still publishes a valid publisher.
            try await a.publish(Publisher(name: "fine", videoCapture: PatternCapturer(width: 320, height: 240)))
            #expect(await eventually { b.streams.count == 1 })
            #expect(b.streams.values.allSatisfy { $0.name == "fine" })
            await a.disconnect()
            await b.disconnect()
            #expect(await MediaTestKit.audioIdle())
        }

        @Test func publishVideoOffStopsFramesAndOnResumesThem() async throws {
            try await MediaTestKit.useTone()
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let p = try await MediaTestKit.pair(server)
            #expect(await eventually { p.renderer.frames >= 10 })

            p.publisher.publishVideo = false
            #expect(await eventually { p.delegate.events.contains("videoDisabled(publisherPropertyChanged)") })
            #expect(await eventually { p.b.streams.values.first?.hasVideo == false })
            // Frames stop: the count settles (no new frame for 300 ms, checked within a bounded window).
            #expect(await Self.settles { p.renderer.frames })
            let stopped = p.renderer.frames
            #expect(p.preview.frames > 0)  // the preview keeps running

            p.publisher.publishVideo = true
            #expect(await eventually { p.delegate.events.contains("videoEnabled(publisherPropertyChanged)") })
            #expect(await eventually { p.renderer.frames >= stopped + 10 })
            await p.disconnect()
            #expect(await MediaTestKit.audioIdle())
        }

        /// The SDK's behaviour: muting does not remove the track, so a subscription made while the publisher's
        /// video is off negotiates it anyway and gets the picture once the publisher turns it on.
        @Test func aSubscriptionMadeWhileVideoIsOffReceivesItOnceTurnedOn() async throws {
            try await MediaTestKit.useTone()
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let p = try await MediaTestKit.pair(server, publishVideo: false)
            // Connected by its audio; no picture while the video is off.
            #expect(await eventually { p.delegate.events.first == "connected" }, "\(p.delegate.events)")
            #expect(p.b.streams.values.first?.hasVideo == false)
            #expect(await eventually { MediaTestKit.meter.soundPeriods >= 10 })
            #expect(p.renderer.frames == 0 && p.subscriber.statistics.videoTrack.packetsReceived == 0)
            let link = try #require((p.a.mediaNegotiator as? WebRTCNegotiator)?.allLinks.first)
            #expect(link.peer?.configuration.videoSSRC != nil, "the video section is negotiated while muted")

            p.publisher.publishVideo = true
            #expect(await eventually { p.delegate.events.contains("videoEnabled(publisherPropertyChanged)") },
                    "\(p.delegate.events)")
            #expect(await eventually { p.renderer.snapshot.patternFrames >= 10 }, "\(p.renderer.snapshot)")
            #expect(p.renderer.snapshot.width == 320 && p.renderer.snapshot.height == 240)
            await p.disconnect()
            #expect(await MediaTestKit.audioIdle())
        }

        /// Likewise for audio: subscribed while the publisher's audio is off, the tone arrives once it is on.
        @Test func aSubscriptionMadeWhileAudioIsOffReceivesItOnceTurnedOn() async throws {
            try await MediaTestKit.useTone()
            let meter = MediaTestKit.meter
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let p = try await MediaTestKit.pair(server, publishAudio: false)
            #expect(await eventually { p.delegate.events == ["connected"] }, "\(p.delegate.events)")
            #expect(await eventually { p.renderer.frames >= 10 })
            #expect(p.b.streams.values.first?.hasAudio == false)
            // The subscriber plays (its mix runs) but hears nothing while the publisher's audio is off.
            #expect(await eventually { meter.periodsRendered >= 30 })
            #expect(meter.soundPeriods == 0, "sound periods \(meter.soundPeriods) while the audio is off")

            p.publisher.publishAudio = true
            #expect(await eventually { p.b.streams.values.first?.hasAudio == true })
            #expect(await eventually { meter.soundPeriods >= 5 }, "sound periods \(meter.soundPeriods)")
            // The tone, measured once the decoder is past its start (the first periods carry its ramp-up).
            meter.reset()
            #expect(await eventually { meter.soundPeriods >= 50 }, "sound periods \(meter.soundPeriods)")
            #expect(abs(meter.measuredFrequency - 440) < 20, "measured \(meter.measuredFrequency) Hz")
            #expect(p.subscriber.statistics.audioTrack.packetsReceived > 0)
            await p.disconnect()
            #expect(await MediaTestKit.audioIdle())
        }

        @Test func subscribeToVideoOffStopsDecodingAndOnResumesIt() async throws {
            try await MediaTestKit.useTone()
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let p = try await MediaTestKit.pair(server)
            #expect(await eventually { p.renderer.frames >= 10 })

            p.subscriber.subscribeToVideo = false
            #expect(await eventually { p.delegate.events.contains("videoDisabled(subscriberPropertyChanged)") })
            #expect(await Self.settles { p.renderer.frames })
            let stopped = p.renderer.frames
            p.subscriber.subscribeToVideo = true
            #expect(await eventually { p.delegate.events.contains("videoEnabled(subscriberPropertyChanged)") })
            #expect(await eventually { p.renderer.frames >= stopped + 10 })
            await p.disconnect()
            #expect(await MediaTestKit.audioIdle())
        }

        @Test func replacingTheCapturerKeepsTheStreamAndFollowsTheNewSize() async throws {
            try await MediaTestKit.useTone()
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let p = try await MediaTestKit.pair(server)
            #expect(await eventually { p.renderer.frames >= 10 })
            let streamID = p.publisher.stream?.streamID

            let second = PatternCapturer(width: 160, height: 120, framesPerSecond: 30)
            p.publisher.videoCapture = second  // the swap runs on the media control queue, not in the setter
            #expect(await eventually { !p.capturer.isCaptureStarted && second.isCaptureStarted })
            #expect(await eventually { p.renderer.snapshot.width == 160 && p.renderer.snapshot.patternFrames > 0 },
                    "\(p.renderer.snapshot)")
            let before = p.renderer.frames
            #expect(await eventually { p.renderer.frames >= before + 10 })
            #expect(p.publisher.stream?.streamID == streamID && p.subscriber.isConnected)
            #expect(p.delegate.events == ["connected"])
            await p.disconnect()
            // The publisher's media stops on its control queue, right after the session lets it go.
            #expect(await eventually { !second.isCaptureStarted })
            #expect(await MediaTestKit.audioIdle())
        }

        /// Simulcast announced at 640x360 (three SSRCs), the video type changed, then a capturer of 240x160 (which
        /// alone would get one layer): the encoder keeps three layers, the new size and the screen tuning.
        @Test func aNewCapturerKeepsTheAnnouncedLayerCountAndTheVideoType() async throws {
            try await MediaTestKit.useTone()
            let media = PublisherMedia()
            let first = PatternCapturer(width: 640, height: 360, framesPerSecond: 30)
            try await media.start(.init(capture: first, preview: nil, publishVideo: true, publishAudio: false,
                                        videoType: .camera, audio: AudioEncodeSettings()))
            #expect(media.enableSimulcast() == 3)
            media.setVideoType(.screen)
            let second = PatternCapturer(width: 240, height: 160, framesPerSecond: 15)
            media.replaceCapture(with: second)
            #expect(await eventually { second.isCaptureStarted && media.videoSettings?.width == 240 })
            let settings = try #require(media.videoSettings)
            #expect(settings.height == 160 && settings.framesPerSecond == 15 && settings.isScreenContent)
            #expect(settings.simulcastLayout.layers.map { "\($0.width)x\($0.height)" }
                == ["60x40", "120x80", "240x160"])
            #expect(media.enableSimulcast() == 3)
            media.stop()
            #expect(await eventually { media.phase == .idle && !second.isCaptureStarted })
            #expect(await MediaTestKit.audioIdle())
        }

        @Test func screenVideoTypeTunesTheEncoderForDetail() async throws {
            #expect(PublisherMedia.contentHint(.screen) == .detail)
            #expect(PublisherMedia.contentHint(.camera) == .motion)
            let settings = PublisherMedia.encodeSettings(.i420(width: 1279, height: 721, fps: 15), .screen)
            #expect(settings.width == 1278 && settings.height == 720 && settings.framesPerSecond == 15)
            #expect(settings.isScreenContent)

            try await MediaTestKit.useTone()
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let p = try await MediaTestKit.pair(server)
            #expect(await eventually { p.renderer.frames >= 5 })
            p.publisher.videoType = .screen
            #expect(await eventually { p.b.streams.values.first?.videoType == .screen })
            let before = p.renderer.frames
            #expect(await eventually { p.renderer.frames >= before + 10 })
            await p.disconnect()
            #expect(await MediaTestKit.audioIdle())
        }

        /// Whether `value` stops changing for 300 ms, within 5 s.
        static func settles(_ value: @escaping @Sendable () -> Int) async -> Bool {
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(5)
            var last = value(), since = clock.now
            while clock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
                let v = value()
                if v != last { last = v; since = clock.now } else if clock.now - since >= .milliseconds(300) { return true }
            }
            return false
        }
    }
}
