import Synchronization
import Testing
@testable import TokKitMedia

/// Delivers `count` solid ARGB frames (borrowed memory) from its own thread, then stops.
final class ScriptedCapturer: VideoCapture, @unchecked Sendable {
    var videoCaptureConsumer: (any VideoCaptureConsumer)?
    var videoContentHint: VideoContentHint = .none
    let count: Int
    private var thread: MediaThread?
    private(set) var initialized = false
    init(count: Int) { self.count = count }
    func initCapture() throws(VideoCaptureError) { initialized = true }
    func releaseCapture() { initialized = false }
    func startCapture() throws(VideoCaptureError) {
        guard initialized else { throw .notInitialized }
        let consumer = videoCaptureConsumer, count = count
        thread = MediaThread(name: "scripted") { me in
            var px = [UInt8](repeating: 0, count: 8 * 4 * 4)
            let lease = FrameLease()
            for i in 0..<count where !me.isStopping {
                for p in stride(from: 0, to: px.count, by: 4) { px[p + 2] = UInt8(i) ; px[p + 3] = 255 }
                px.withUnsafeBytes { raw in
                    _ = try? lease.lend(format: .argb(width: 8, height: 4), borrowing: raw, orientation: .right) { f in
                        consumer?.consumeFrame(f)
                    }
                }
            }
            consumer?.captureDidFail(.deviceUnplugged("scripted"))
        }
    }
    func stopCapture() { thread?.stop(); thread = nil }
    var isCaptureStarted: Bool { thread != nil }
    func captureSettings() -> VideoFormat { .argb(width: 8, height: 4) }
}

final class CountingRenderer: VideoRender, Sendable {
    let frames = Mutex<[VideoFrame]>([])
    func renderVideoFrame(_ frame: VideoFrame) { frames.withLock { $0.append(frame) } }
}

@Suite struct LocalPreviewTests {
    @Test func rendersUprightI420CopiesOfEveryFrame() async throws {
        let renderer = CountingRenderer()
        let preview = LocalPreview(capturer: ScriptedCapturer(count: 5), renderer: renderer)
        #expect(throws: VideoCaptureError.notInitialized) { try ScriptedCapturer(count: 1).startCapture() }
        try preview.start()
        try await waitUntil { preview.captureError != nil }
        preview.stop()
        #expect(preview.captureError == .deviceUnplugged("scripted"))
        // This renderer keeps every frame, so the preview's small pool runs dry: later frames are dropped
        // (newest frame wins), never blocked on.
        #expect(preview.framesRendered + preview.framesDropped == 5)
        #expect(preview.framesDropped > 0)
        let frames = renderer.frames.withLock { $0 }
        #expect(frames.count == preview.framesRendered && frames.count >= 1)
        for f in frames {
            #expect(f.format.pixelFormat == .i420 && f.orientation == .up && !f.isBorrowed)
            #expect(f.format.width == 4 && f.format.height == 8, "rotated upright")
        }
    }
}

final class LastFrameRenderer: VideoRender, Sendable {
    let count = Atomic<Int>(0)
    func renderVideoFrame(_ frame: VideoFrame) { count.add(1, ordering: .relaxed) }
}

@Suite struct LocalPreviewSteadyStateTests {
    @Test func aRendererThatKeepsNothingGetsEveryFrame() async throws {
        let renderer = LastFrameRenderer()
        let preview = LocalPreview(capturer: ScriptedCapturer(count: 50), renderer: renderer)
        try preview.start()
        try await waitUntil { preview.captureError != nil }
        preview.stop()
        #expect(preview.framesRendered == 50 && preview.framesDropped == 0)
        #expect(renderer.count.load(ordering: .relaxed) == 50)
    }
}
