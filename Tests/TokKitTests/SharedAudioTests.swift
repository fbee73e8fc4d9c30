import Testing
import TokKitAudio
import TokKitTesting

@testable import TokKit

extension LiveServer {
    /// The process's audio device through TokKit's bus: capture feeds publishers, subscribers are mixed into
    /// what it plays, and it runs only while someone needs it.
    @Suite struct SharedAudioTests {
        @Test func aToneCapturedByThePublisherIsPlayedForTheSubscriber() async throws {
            try await MediaTestKit.useTone()
            let tone = MediaTestKit.tone, meter = MediaTestKit.meter
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let p = try await MediaTestKit.pair(server)
            // Capture starts with the publisher; rendering once the subscription's media is negotiated.
            #expect(await eventually { tone.isCapturing && tone.isRendering && SharedAudio.users == (1, 1) },
                    "users \(SharedAudio.users), capturing \(tone.isCapturing), rendering \(tone.isRendering)")

            #expect(await eventually { meter.soundPeriods >= 50 }, "sound periods: \(meter.soundPeriods)")
            // Opus keeps a 440 Hz tone a 440 Hz tone.
            #expect(abs(meter.measuredFrequency - 440) < 20, "measured \(meter.measuredFrequency) Hz")
            let sent = p.publisher.statistics.audio, received = p.subscriber.statistics
            #expect(sent.packetsEncoded > 0 && sent.packetsSent > 0)
            #expect(received.audio.packetsDecoded > 0 && received.audioTrack.packetsReceived > 0)

            // subscribeToAudio off: silence; on: the tone again.
            p.subscriber.subscribeToAudio = false
            #expect(await PublisherMediaTests.settles { meter.soundPeriods })
            let muted = meter.soundPeriods
            p.subscriber.subscribeToAudio = true
            #expect(await eventually { meter.soundPeriods >= muted + 20 })

            // publishAudio off: the subscriber hears silence too.
            p.publisher.publishAudio = false
            #expect(await PublisherMediaTests.settles { meter.soundPeriods })
            p.publisher.publishAudio = true
            let resumed = meter.soundPeriods
            #expect(await eventually { meter.soundPeriods >= resumed + 20 })

            try await p.b.unsubscribe(p.subscriber)
            #expect(await eventually { SharedAudio.users == (1, 0) && !tone.isRendering && tone.isCapturing })
            await p.disconnect()
            #expect(await MediaTestKit.audioIdle())
        }
    }
}
