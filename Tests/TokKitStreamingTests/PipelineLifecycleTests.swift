import Testing
import TokKitICETestSupport
import TokKitMedia
import TokKitPeer
import TokKitTesting
@testable import TokKitStreaming

/// Building, attaching, detaching and closing pipelines leaves no thread and no file descriptor behind.
@Suite("Pipeline lifecycle", .serialized) struct PipelineLifecycleTests {
    /// How many of the named threads are alive (other suites run pipelines concurrently: count ours only).
    static func alive(_ names: Set<String>) -> Int { threadNames().filter(names.contains).count }

    @Test func fiftyAttachDetachCloseCyclesLeaveNoThreadOrDescriptor() async throws {
        let peers = try await LoopbackPeerPair.connect()
        defer { peers.close() }
        let bus = try MediaAudioBus()
        let settings = VideoEncodeSettings(width: 160, height: 120, framesPerSecond: 30, bitrate: 200_000)
        // Warm up once so lazily created process-wide state (libvpx tables, pools) is not counted as a leak.
        let warmUp = try await cycle(peers, bus, settings, frame: 0)
        #expect(await eventually(within: .seconds(10)) { Self.alive(warmUp) == 0 })
        let fds = openFileDescriptors(), threads = threadNames().count

        var names: Set<String> = []
        for i in 1...50 { names.formUnion(try await cycle(peers, bus, settings, frame: i)) }

        #expect(names.count == 150, "each cycle runs one encode, one sending and one decode thread")
        #expect(await eventually(within: .seconds(10)) { Self.alive(names) == 0 },
                "pipeline threads left: \(threadNames().filter(names.contains))")
        // Other suites may run concurrently and open a few descriptors or threads of their own; a leak here
        // would be at least 50.
        #expect(openFileDescriptors() <= fds + 8, "descriptors \(fds) → \(openFileDescriptors())")
        #expect(threadNames().count <= threads + 8, "threads \(threads) → \(threadNames().count)")
        #expect(bus.mixer.inputs.isEmpty)
    }

    /// One publish/subscribe cycle on an existing connection: every pipeline built, one frame and one audio
    /// packet through, everything detached and closed.
    /// Returns the names of the threads the cycle's pipelines ran.
    private func cycle(_ peers: LoopbackPeerPair, _ bus: MediaAudioBus, _ settings: VideoEncodeSettings,
                       frame: Int) async throws -> Set<String> {
        let video = try VideoSendPipeline(settings: settings)
        let audio = try AudioSendPipeline()
        let renderer = CountingRenderer(width: 160, height: 120)
        let videoIn = VideoReceivePipeline(peer: peers.subscriber, renderer: renderer)
        let audioIn = AudioReceivePipeline(peer: peers.subscriber)
        bus.add(audio)
        bus.mixer.add(audioIn)
        try video.attach(peers.publisher)
        try audio.attach(peers.publisher)

        video.consumeFrame(try TestPattern.frame(frame, width: 320, height: 240, timestamp: MonotonicClock.now()))
        let silence = [Int16](repeating: 0, count: 960)
        silence.withUnsafeBufferPointer { bus.writeCaptureData($0) }
        #expect(await eventually(within: .seconds(20)) { renderer.count == 1 }, "cycle \(frame)")

        video.detach(peers.publisher)
        audio.detach(peers.publisher)
        bus.remove(audio)
        bus.mixer.remove(audioIn)
        video.close()
        audio.close()
        videoIn.close()
        audioIn.close()
        return [video.threadName, video.sendThreadName, videoIn.threadName]
    }
}
