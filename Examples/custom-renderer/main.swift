// custom-renderer: the tutorial's "custom video renderer" chapter. A VideoRender of our own draws each received
// frame as text art in the terminal, from the frame's luma plane.
//
//     swift run custom-renderer [--server URL] [--seconds N]
//
// A renderer is called on the subscriber's decode thread with an I420 frame that is valid only during the call:
// it must copy what it keeps and return quickly (see Docs/Extending.md).
import ExampleHelp
import ExampleSupport
import Foundation
import Synchronization
import TokKit
import TokKitCapture
import TokKitMedia

/// Draws every `interval`-th frame as `columns`×`rows` characters, darkest to brightest.
final class TextArtRenderer: VideoRender {
    private let columns = 64, rows = 20, interval: Int
    private let frames = Atomic<Int>(0)
    private static let ramp = Array(" .:-=+*#%@")

    init(interval: Int = 30) { self.interval = interval }

    var frameCount: Int { frames.load(ordering: .relaxed) }

    func renderVideoFrame(_ frame: VideoFrame) {
        let n = frames.add(1, ordering: .relaxed).newValue
        guard n % interval == 1, frame.format.pixelFormat == .i420 else { return }
        let width = frame.format.width, height = frame.format.height
        let stride = frame.format.bytesPerRow[0]
        var art = "frame \(n), \(width)x\(height)\n"
        // Throws only for a borrowed frame read after its call returned (VideoFrameError.expired): never here.
        try? frame.withPlanes { planes in
            let luma = planes[0]
            for row in 0..<rows {
                let y = row * height / rows
                for column in 0..<columns {
                    let x = column * width / columns
                    let value = Int(luma[y * stride + x])
                    art.append(Self.ramp[value * (Self.ramp.count - 1) / 255])
                }
                art.append("\n")
            }
        }
        print(art, terminator: "")
    }
}

ExampleUsage("""
    usage: custom-renderer [--server URL] [--seconds N]

    Subscribes to a stream with a renderer of its own that draws every 15th received frame as text art here.

    \(ExampleSession.optionsHelp)
    """).answerHelp()

let seconds = ExampleSession.seconds()
await ExampleSession.run("custom-renderer") { example in
    let session = example.session
    let publisher = Publisher(name: "custom-renderer",
                              videoCapture: NoiseCapturer(width: 320, height: 240, framesPerSecond: 15))
    try await session.publish(publisher)
    let stream = try await example.streamToSubscribe(besides: publisher)
    let renderer = TextArtRenderer(interval: 15)
    let subscriber = Subscriber(stream: stream, videoRender: renderer)
    try await session.subscribe(subscriber)
    try await Task.sleep(for: .seconds(seconds))
    print("rendered \(renderer.frameCount) frames")
    try await session.unsubscribe(subscriber)
    try await session.unpublish(publisher)
}
