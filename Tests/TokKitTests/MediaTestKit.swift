#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import Testing
import TokKitAudio
import TokKitTesting

@testable import TokKit

/// What the media tests share: the process's test audio device, a publisher/subscriber pair, and counts of the
/// process's threads and descriptors.
enum MediaTestKit {
    /// What ``tone`` plays, analysed.
    static let meter = ToneMeter()
    /// The one audio device of the test process: a 440 Hz tone in, analysed out (by ``meter``).
    static let tone = ToneAudioDevice(renderSink: meter.sink)

    /// Makes ``tone`` the process's audio device, once the previous tests' publishers and subscribers let go of
    /// the current one (their media stops asynchronously).
    static func useTone() async throws {
        _ = await currentDeviceIdle()
        try AudioDeviceManager.setAudioDevice(tone)
        meter.reset()
    }

    /// Waits until no publisher or subscriber uses the process's audio device and it stopped.
    static func currentDeviceIdle() async -> Bool {
        await eventually {
            let current = AudioDeviceManager.currentAudioDevice()
            return SharedAudio.users == (0, 0) && !current.isCapturing && !current.isRendering
        }
    }

    /// Waits until no publisher or subscriber uses the audio device any more and it stopped.
    static func audioIdle() async -> Bool {
        await eventually {
            SharedAudio.users == (0, 0) && !tone.isCapturing && !tone.isRendering
        }
    }

    /// A/B sessions with media, A publishing a pattern capturer, B subscribed with a counting renderer.
    struct Pair {
        let a: Session
        let b: Session
        let capturer: PatternCapturer
        let preview: CountingRenderer
        let publisher: Publisher
        let renderer: CountingRenderer
        let subscriber: Subscriber
        let delegate: SubscriberRecorder
        let recorderB: EventRecorder

        func disconnect() async {
            await a.disconnect()
            await b.disconnect()
        }
    }

    static func pair(_ server: TestServer, width: Int = 320, height: Int = 240, subscribeToAudio: Bool = true,
                     publishAudio: Bool = true, publishVideo: Bool = true, audioBitrate: Int = 32_000,
                     opusDTX: Bool = false) async throws -> Pair
    {
        let (a, _) = try await server.connected(media: true)
        let (b, rb) = try await server.connected(media: true)
        let capturer = PatternCapturer(width: width, height: height, framesPerSecond: 30)
        let preview = CountingRenderer()
        let publisher = Publisher(name: "pattern", publishAudio: publishAudio, publishVideo: publishVideo,
                                  videoCapture: capturer, videoRender: preview, audioBitrate: audioBitrate,
                                  opusDTX: opusDTX)
        try await a.publish(publisher)
        let streamID = try #require(publisher.stream?.streamID)
        #expect(await eventually { b.streams[streamID] != nil })
        let renderer = CountingRenderer()
        let delegate = SubscriberRecorder()
        let subscriber = Subscriber(stream: try #require(b.streams[streamID]), subscribeToAudio: subscribeToAudio,
                                    videoRender: renderer, delegate: delegate)
        try await b.subscribe(subscriber)
        return Pair(a: a, b: b, capturer: capturer, preview: preview, publisher: publisher, renderer: renderer,
                    subscriber: subscriber, delegate: delegate, recorderB: rb)
    }

    /// Threads of this process.
    static func threadCount() -> Int { entries("/proc/self/task") }

    /// This process's thread names with their counts (for messages).
    static func threadNames() -> String {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return "?" }
        var counts: [String: Int] = [:]
        for t in tasks {
            let name = (try? String(contentsOfFile: "/proc/self/task/\(t)/comm", encoding: .utf8)) ?? "?"
            counts[name.trimmingCharacters(in: .whitespacesAndNewlines), default: 0] += 1
        }
        return counts.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")
    }

    /// Open descriptors of this process.
    static func descriptorCount() -> Int { entries("/proc/self/fd") }

    private static func entries(_ path: String) -> Int {
        guard let dir = opendir(path) else { return -1 }
        defer { closedir(dir) }
        var n = 0
        while let e = readdir(dir) {
            // In place, up to the NUL (copying the 256-byte field reads past a short last record: AddressSanitizer).
            let name = String(cString: UnsafeRawPointer(e).advanced(by: MemoryLayout<dirent>.offset(of: \dirent.d_name)!)
                .assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." { n += 1 }
        }
        return n
    }
}

extension MediaTestKit {
    /// Waits until exactly these many publishers and subscribers use the audio device.
    static func audioUsers(senders: Int, receivers: Int) async -> Bool {
        await eventually { SharedAudio.users == (senders, receivers) }
    }
}
