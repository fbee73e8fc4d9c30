import Testing
import TokKitICETestSupport
import TokKitMedia
@testable import TokKitPeer
@testable import TokKitStreaming
import TokKitTesting

/// Tones through the whole audio path: bus capture side → AudioSendPipeline → Opus → peer A → peer B →
/// AudioReceivePipeline → AudioMixer → bus render side.
@Suite("AudioSendPipeline", .serialized) struct AudioSendPipelineTests {
    /// Plays `tones` (one publisher each) for `periods` × 10 ms through one mixer, pacing capture and render
    /// one 20 ms packet at a time; returns the mixed output.
    static func call(tones: [Double], periods: Int = 100, captureChannels: Int = 1) async throws -> [Int16] {
        var pairs: [LoopbackPeerPair] = []
        for _ in tones { pairs.append(try await LoopbackPeerPair.connect()) }
        defer { pairs.forEach { $0.close() } }
        let mixer = AudioMixer()
        let capture = AudioFormat(numberOfChannels: captureChannels)
        let buses = try tones.map { _ in try MediaAudioBus(captureFormat: capture, renderFormat: .voice, mixer: mixer) }
        let senders = try tones.map { _ in try AudioSendPipeline() }
        let receivers = pairs.map { AudioReceivePipeline(peer: $0.subscriber) }
        defer { senders.forEach { $0.close() }; receivers.forEach { $0.close() } }
        for i in tones.indices {
            buses[i].add(senders[i])
            try senders[i].attach(pairs[i].publisher)
            mixer.add(receivers[i])
        }
        var output: [Int16] = []
        var period = [Int16](repeating: 0, count: 480)
        for p in 0..<periods {
            for i in tones.indices {
                let mono = Tone.samples(tones[i], count: 480, offset: p * 480)
                let interleaved = captureChannels == 1 ? mono : mono.flatMap { [$0, $0] }
                interleaved.withUnsafeBufferPointer { buses[i].writeCaptureData($0) }
            }
            if p % 2 == 1 {  // a packet is complete: wait for it to arrive everywhere, then play 20 ms
                let expected = (p + 1) / 2
                let arrived = await eventually(within: .seconds(20)) {
                    receivers.allSatisfy { $0.statistics.packetsReceived >= expected }
                }
                try #require(arrived, "packets \(receivers.map { $0.statistics.packetsReceived }) of \(expected)")
                for _ in 0..<2 {
                    period.withUnsafeMutableBufferPointer { _ = buses[0].readRenderData($0) }
                    output += period
                }
            }
        }
        #expect(senders.allSatisfy { $0.statistics.packetsEncoded == periods / 2 })
        // The tones' peak (8000) over full scale, on both sides, as last recorded (the fall-off since depends on
        // how long ago that was): each receiver's as it was last mixed, each sender's as last captured.
        for receiver in receivers {
            #expect(receiver.level.recorded > 0.15 && receiver.level.recorded < 0.35, "level \(receiver.level.recorded)")
        }
        for sender in senders {
            #expect(abs(sender.level.recorded - 0.244) < 0.05, "level \(sender.level.recorded)")
        }
        return output
    }

    @Test func a440HzToneArrivesAs440Hz() async throws {
        let output = try await Self.call(tones: [440])
        let tail = output.suffix(9_600)  // the last 200 ms, past the jitter buffer's start-up
        #expect(Tone.dominant(tail) == 440, "dominant \(Tone.dominant(tail)) Hz")
        #expect(tail.map { abs(Int($0)) }.max() ?? 0 > 4_000, "the tone lost most of its level")
    }

    @Test func stereoCaptureIsDownmixed() async throws {
        let output = try await Self.call(tones: [1_000], captureChannels: 2)
        #expect(Tone.dominant(output.suffix(9_600)) == 1_000)
    }

    /// With DTX a pause costs almost no packets, and the tone after it plays again: the receiver's jitter buffer
    /// runs dry during the pause and starts over when the sound returns.
    @Test func dtxPauseSendsLittleAndTheToneReturnsAfterIt() async throws {
        let peers = try await LoopbackPeerPair.connect()
        defer { peers.close() }
        let sender = try AudioSendPipeline(settings: AudioEncodeSettings(dtx: true))
        let receiver = AudioReceivePipeline(peer: peers.subscriber)
        defer { sender.close(); receiver.close() }
        try sender.attach(peers.publisher)
        var output: [Int16] = []
        var period = [Int16](repeating: 0, count: 480)
        // 1 s of tone, 2 s of silence, 1 s of tone in 10 ms periods; every 20 ms, wait for what was sent, play it.
        for p in 0..<400 {
            let samples = (100..<300).contains(p)
                ? [Int16](repeating: 0, count: 480) : Tone.samples(440, count: 480, offset: p * 480)
            samples.withUnsafeBufferPointer { sender.write($0, channels: 1) }
            guard p % 2 == 1 else { continue }
            let sent = peers.publisher.statistics(.audio).packetsSent
            let arrived = await eventually(within: .seconds(20)) { receiver.statistics.packetsReceived >= sent }
            try #require(arrived, "received \(receiver.statistics.packetsReceived) of \(sent)")
            for _ in 0..<2 {
                period.withUnsafeMutableBufferPointer { _ = receiver.read(into: $0) }
                output += period
            }
        }
        let sent = sender.statistics
        #expect(sent.packetsSuppressed >= 70 && sent.packetsEncoded + sent.packetsSuppressed == 200, "\(sent)")
        #expect(receiver.statistics.packetsReceived == sent.packetsEncoded)
        let tail = output.suffix(9_600)  // the last 200 ms
        #expect(Tone.dominant(tail) == 440, "dominant \(Tone.dominant(tail)) Hz")
        #expect(tail.map { abs(Int($0)) }.max() ?? 0 > 4_000, "the tone lost most of its level")
    }

    /// Voice with every fifth packet lost on the way and the receiver reporting it: once the sender's FEC follows
    /// the reported loss, the packet after each loss carries in-band FEC, so most losses are recovered from it and
    /// counted as recovered, not concealed.
    @Test func lostVoicePacketsAreRecoveredFromTheNextPacketsFEC() async throws {
        let peers = try await LoopbackPeerPair.connect()
        defer { peers.close() }
        let mixer = AudioMixer()
        let bus = try MediaAudioBus(captureFormat: AudioFormat(numberOfChannels: 1), renderFormat: .voice, mixer: mixer)
        let sender = try AudioSendPipeline()
        let receiver = AudioReceivePipeline(peer: peers.subscriber)
        defer { sender.close(); receiver.close() }
        bus.add(sender)
        try sender.attach(peers.publisher)
        mixer.add(receiver)
        peers.subscriber.setIncomingLoss { _, sequence in sequence % 5 == 2 }
        var period = [Int16](repeating: 0, count: 480)
        for p in 0..<1_000 {  // 5 s
            Tone.voice(count: 480, offset: p * 480).withUnsafeBufferPointer { bus.writeCaptureData($0) }
            guard p % 2 == 1 else { continue }
            let sent = sender.statistics.packetsEncoded
            if sent % 25 == 0 { try peers.subscriber.sendReports() }  // these peers have no report timer
            // Wait for what was sent and not dropped (a packet at most), then play 20 ms.
            _ = await eventually(within: .seconds(5)) { receiver.statistics.packetsReceived >= sent * 4 / 5 - 1 }
            for _ in 0..<2 { period.withUnsafeMutableBufferPointer { _ = bus.readRenderData($0) } }
        }
        #expect(sender.statistics.expectedPacketLoss >= 10, "\(sender.statistics)")
        let s = receiver.statistics
        #expect(s.packetsRecovered + s.packetsConcealed >= 80, "\(s)")
        #expect(s.packetsRecovered > s.packetsConcealed, "\(s)")
    }

    /// The receiver's reports (RTCP fraction lost, once a second) retune the sender's Opus FEC: up when half the
    /// packets are lost, down again on a clean path.
    @Test func theFECFollowsTheLossTheReceiverReports() async throws {
        let peers = try await LoopbackPeerPair.connect()
        defer { peers.close() }
        let sender = try AudioSendPipeline()
        let receiver = AudioReceivePipeline(peer: peers.subscriber)
        defer { sender.close(); receiver.close() }
        try sender.attach(peers.publisher)
        #expect(sender.statistics.expectedPacketLoss == 5, "before any report")
        peers.subscriber.setIncomingLoss { _, sequence in sequence % 2 == 0 }

        /// Sends 20 ms of tone every 20 ms, and a receiver report every 25 packets (these peers have no report
        /// timer), until `done` or 400 packets (8 s, 16 reports).
        func send(until done: (AudioSendStatistics) -> Bool) async throws -> Bool {
            for n in 0..<400 {
                Tone.samples(440, count: 960, offset: n * 960).withUnsafeBufferPointer { sender.write($0, channels: 1) }
                if n % 25 == 24 { try peers.subscriber.sendReports() }
                if done(sender.statistics) { return true }
                try await Task.sleep(for: .milliseconds(20))
            }
            return false
        }
        let climbed = try await send { $0.expectedPacketLoss == 20 }
        #expect(climbed, "\(sender.statistics); \(peers.publisher.statistics(.audio))")
        #expect(peers.publisher.statistics(.audio).remoteFractionLost > 0.4)

        peers.subscriber.setIncomingLoss(nil)
        let settled = try await send { $0.expectedPacketLoss == 0 }
        #expect(settled, "\(sender.statistics); \(peers.publisher.statistics(.audio))")
    }

    @Test func disabledSendsNothing() async throws {
        let peers = try await LoopbackPeerPair.connect()
        defer { peers.close() }
        let sender = try AudioSendPipeline()
        defer { sender.close() }
        try sender.attach(peers.publisher)
        sender.isEnabled = false
        let tone = Tone.samples(440, count: 960, offset: 0)
        tone.withUnsafeBufferPointer { sender.write($0, channels: 1) }
        #expect(sender.level.level == 0, "a muted microphone reads silent")
        #expect(sender.statistics.packetsEncoded == 0 && peers.publisher.statistics(.audio).packetsSent == 0)
        sender.isEnabled = true
        tone.withUnsafeBufferPointer { sender.write($0, channels: 1) }
        #expect(sender.statistics.packetsEncoded == 1 && peers.publisher.statistics(.audio).packetsSent == 1)
    }

    @Test func unsupportedFormatsAreTypedErrors() {
        #expect(throws: StreamingError.unsupportedAudioFormat(AudioFormat(sampleRate: 16_000))) {
            _ = try MediaAudioBus(captureFormat: AudioFormat(sampleRate: 16_000))
        }
        #expect(throws: StreamingError.self) { _ = try MediaAudioBus(renderFormat: AudioFormat(numberOfChannels: 6)) }
    }
}
