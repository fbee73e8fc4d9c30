// custom-capturer: the tutorial's custom video capturer and screen-sharing chapters. The publisher's video comes
// from any VideoCapture: TokKit's noise, V4L2 camera or X11 screen capturers, or one written here.
//
//     swift run custom-capturer [--source pattern|noise|camera|screen] [--server URL] [--seconds N]
//
// `pattern` (the default) is the capturer written below: a moving bar drawn into ARGB buffers it owns and hands
// over borrowed, on a paced thread of its own — the contract in Docs/Extending.md. `screen` shares the X display
// in $DISPLAY (try `Xvfb :5 -screen 0 1280x720x24 & DISPLAY=:5 swift run custom-capturer --source screen`); its
// content hint tunes the encoder for detail at a low frame rate, and the stream's video type says "screen".
import ExampleHelp
import ExampleSupport
import Foundation
import Synchronization
import TokKit
import TokKitCapture
import TokKitMedia

/// A moving vertical bar on a grey background, 320x240 ARGB at 15 fps.
///
/// The pixels live in one buffer the capturer owns; each frame is lent through a `FrameLease`, so it is readable
/// only during `consumeFrame` (the consumer copies what it keeps; a kept frame throws `.expired` when read). Drawing happens on the capture thread, outside the
/// lock, so a consumer that calls back into the capturer cannot deadlock.
final class PatternCapturer: VideoCapture, @unchecked Sendable {  // `pixels` is touched by the capture thread only
    private let format = VideoFormat.argb(width: 320, height: 240, fps: 15)
    private let pixels: UnsafeMutableRawBufferPointer
    private let lease = FrameLease()  // one for all frames: lending allocates nothing
    private struct State {
        var consumer: (any VideoCaptureConsumer)?
        var hint = VideoContentHint.motion
        var thread: PeriodicThread?
    }
    private let state = Mutex(State())
    private let frames = Atomic<Int>(0)

    init() {
        pixels = .allocate(byteCount: format.minimumFrameSize, alignment: 16)
        pixels.initializeMemory(as: UInt8.self, repeating: 0x80)
    }

    deinit {
        stopCapture()
        pixels.deallocate()
    }

    var videoCaptureConsumer: (any VideoCaptureConsumer)? {
        get { state.withLock { $0.consumer } }
        set { state.withLock { $0.consumer = newValue } }
    }
    var videoContentHint: VideoContentHint {
        get { state.withLock { $0.hint } }
        set { state.withLock { $0.hint = newValue } }
    }

    func initCapture() throws(VideoCaptureError) {}

    func startCapture() throws(VideoCaptureError) {
        let thread = PeriodicThread(name: "pattern-capture", interval: .milliseconds(66)) { [weak self] in
            self?.deliver() ?? false
        }
        state.withLock { $0.thread = thread }
    }

    /// Draws the next frame and hands it to the consumer. Runs on the capture thread only.
    private func deliver() -> Bool {
        guard let consumer = videoCaptureConsumer else { return true }
        let width = format.width, bar = (frames.add(1, ordering: .relaxed).newValue * 4) % width
        for y in 0..<format.height {
            for x in 0..<width {
                let v: UInt8 = abs(x - bar) < 12 ? 0xF0 : 0x40
                let i = (y * width + x) * 4
                pixels[i] = v; pixels[i + 1] = v; pixels[i + 2] = v; pixels[i + 3] = 0xFF
            }
        }
        try? lease.lend(format: format, borrowing: UnsafeRawBufferPointer(pixels)) { frame in
            consumer.consumeFrame(frame)
        }  // returns once nobody reads the frame any more: the buffer may be redrawn
        return true
    }

    func stopCapture() {
        let thread = state.withLock { s in defer { s.thread = nil }; return s.thread }
        thread?.stop()
    }

    func releaseCapture() { stopCapture() }

    var isCaptureStarted: Bool { state.withLock { $0.thread != nil } }
    func captureSettings() -> VideoFormat { format }
}

ExampleUsage("""
    usage: custom-capturer [--source pattern|noise|camera|screen] [--server URL] [--seconds N]

    Publishes video from a capturer of its choice and subscribes to it; the last received frame is written to
    custom-capturer-SOURCE.png.

      --source S     pattern (default: a capturer written in this example), noise, camera (the first V4L2
                     camera) or screen (the X display in $DISPLAY)
    \(ExampleSession.optionsHelp)
    """).answerHelp()

let source = ExampleSession.option("--source") ?? "pattern"
let capturer: any VideoCapture
var videoType = StreamVideoType.camera
switch source {
case "pattern": capturer = PatternCapturer()
case "noise": capturer = NoiseCapturer(width: 640, height: 480, framesPerSecond: 30)
case "camera":
    guard let camera = CameraCapturer.availableCameras().first else {
        print("no V4L2 camera found (ls /dev/video*); try --source noise")
        exit(1)
    }
    print("camera: \(camera)")
    capturer = CameraCapturer(camera: .index(0))
case "screen":
    capturer = ScreenCapturer(source: .screen)
    videoType = .screen
default:
    print("unknown --source \(source): use pattern, noise, camera or screen")
    exit(2)
}

let seconds = ExampleSession.seconds()
await ExampleSession.run("custom-capturer") { example in
    let session = example.session
    let preview = GrayscaleRenderer()
    let publisher = Publisher(name: "custom-capturer (\(source))", videoType: videoType, videoCapture: capturer,
                              videoRender: preview)
    try await session.publish(publisher)
    let stream = try await example.streamToSubscribe(besides: publisher)
    let view = GrayscaleRenderer()
    let subscriber = Subscriber(stream: stream, videoRender: view)
    try await session.subscribe(subscriber)
    try await Task.sleep(for: .seconds(seconds))
    print("\(source): preview \(preview.frameCount) frames, received \(view.frameCount) frames"
          + (view.lastSize.map { " at \($0.width)x\($0.height)" } ?? ""))
    if view.frameCount > 0 {
        try view.writeImage(to: "custom-capturer-\(source).png")
        print("last received frame written to custom-capturer-\(source).png")
    }
    try await session.unsubscribe(subscriber)
    try await session.unpublish(publisher)
}
