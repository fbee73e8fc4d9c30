import Testing
import TokKitAudio
import TokKitJanus
import TokKitProtocol
import TokKitServer
import TokKitTesting

@testable import TokKit

/// Force mute in a routed session reaches Janus (issue 15): a publisher client that ignores `muteForced` and keeps
/// sending its tone is silenced at Janus (VideoRoom `moderate`), and its audio returns once it turns audio back on.
@Suite("Routed force mute through Janus", .serialized) struct RoutedForceMuteTests {
    /// A 440 Hz tone published through Janus reaches a subscriber (audio packets arrive, the tone meter hears it);
    /// a moderator force-mutes the stream and the publisher's client re-enables its audio behind the server's back
    /// (as a client ignoring the mute would): the subscriber's audio packets stop within a bounded time and stay
    /// stopped. The publisher then turns audio on properly (`hasAudio` true): packets and the tone come back.
    @Test func forceMuteSilencesAnIgnoringPublisherAtJanusAndItsUnmuteLiftsIt() async throws {
        let (tone, meter) = ToneAudioDevice.measured(frequency: 440)
        _ = await eventually { !AudioDeviceManager.currentAudioDevice().isCapturing }
        try AudioDeviceManager.setAudioDevice(tone)
        try await RoutedLab.run { lab, janus, server in
            let sessionID = try await server.createSession(mediaMode: .routed).sessionID
            let alice = try await RoutedLab.connect(server, sessionID, lab)
            let publisher = Publisher(name: "tone", videoCapture: SequenceCapturer(.textured, framesPerSecond: 15))
            try await alice.publish(publisher)
            let streamID = try #require(publisher.stream?.streamID)

            let bob = try await RoutedLab.connect(server, sessionID, lab)
            #expect(await eventually { bob.streams[streamID] != nil })
            let subscriber = Subscriber(stream: try #require(bob.streams[streamID]))
            try await bob.subscribe(subscriber)
            let received = { subscriber.statistics.audioTrack.packetsReceived }
            let heard = await eventually(timeout: .seconds(20)) { received() >= 100 && meter.soundPeriods >= 50 }
            #expect(heard, "audio packets \(received()), loud periods \(meter.soundPeriods); janus:\n\(janus.logTail(20))")
            guard heard else { return }

            // The moderator mutes; the publisher's client obeys (muteForced), then re-enables its audio without
            // telling anyone: it keeps sending the tone.
            let moderator = try await RoutedLab.connect(server, sessionID, lab, role: .moderator)
            #expect(await eventually { moderator.streams[streamID] != nil })
            try await moderator.forceMute(try #require(moderator.streams[streamID]))
            #expect(await eventually { !publisher.publishAudio }, "the client applied the forced mute")
            publisher.media.setAudioEnabled(true)
            let sent0 = publisher.statistics.subscriptions.reduce(0) { $0 + $1.audioTrack.packetsSent }

            // Janus drops the stream's audio: the subscriber's packet count settles (bounded wait), while the
            // publisher's keeps growing.
            var settled = false
            var last = received()
            for _ in 0..<20 where !settled {
                try await Task.sleep(for: .seconds(1))
                let now = received()
                settled = now == last
                last = now
            }
            #expect(settled, "the subscriber's audio packets kept growing (\(last)) after the force mute")
            let before = received()
            meter.reset()
            try await Task.sleep(for: .seconds(2))
            let sent = publisher.statistics.subscriptions.reduce(0) { $0 + $1.audioTrack.packetsSent } - sent0
            print("routed force mute: publisher sent \(sent) audio packets while muted; subscriber received "
                  + "\(received() - before) in 2 s, loud periods \(meter.soundPeriods)")
            #expect(sent >= 50, "the ignoring publisher keeps sending audio (\(sent) packets)")
            #expect(received() == before, "no audio reaches the subscriber while muted at Janus")
            #expect(meter.soundPeriods == 0, "the subscriber hears nothing (\(meter.soundPeriods) loud periods)")

            // The publisher turns audio on (hasAudio true): Janus forwards it again.
            publisher.publishAudio = true
            let back = await eventually(timeout: .seconds(10)) {
                received() >= before + 100 && meter.soundPeriods >= 50
            }
            #expect(back, "audio back after the unmute: packets \(received() - before), loud \(meter.soundPeriods)")

            await moderator.disconnect()
            await bob.disconnect()
            await alice.disconnect()
        }
    }
}
