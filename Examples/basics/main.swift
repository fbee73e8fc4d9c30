// basics: the tutorial's first chapter. Connect to a session, publish a camera, subscribe to a stream and see
// its video.
//
//     swift run basics [--server URL] [--seconds N]
//
// Alone (no --server), the example subscribes to its own stream, the SDK's way of testing a setup with one
// participant: the frames it renders have made the whole trip (capture → VP8 → SRTP over 127.0.0.1 → decode).
// With --server it subscribes to the first stream of somebody else (a browser on the server's page, say).
import ExampleHelp
import ExampleSupport
import Foundation
import TokKit
import TokKitCapture

/// Prints the delegate callbacks the tutorial relies on. They arrive on the session's delegate queue.
final class Events: SessionDelegate, PublisherDelegate, SubscriberDelegate {
    func session(_ session: Session, streamCreated stream: SessionStream) {
        print("session: stream created \"\(stream.name)\" (video \(stream.hasVideo), audio \(stream.hasAudio))")
    }
    func session(_ session: Session, streamDestroyed stream: SessionStream) {
        print("session: stream destroyed \"\(stream.name)\"")
    }
    func publisher(_ publisher: Publisher, streamCreated stream: SessionStream) {
        print("publisher: publishing as stream \(stream.streamID)")
    }
    func publisher(_ publisher: Publisher, didFailWithError error: SessionError) {
        print("publisher: failed: \(error)")
    }
    func subscriberDidConnect(toStream subscriber: Subscriber) {
        print("subscriber: media flowing from \"\(subscriber.stream.name)\"")
    }
    func subscriber(_ subscriber: Subscriber, didFailWithError error: SessionError) {
        print("subscriber: failed: \(error)")
    }
}

ExampleUsage("""
    usage: basics [--server URL] [--seconds N]

    Connects to a session, publishes a noise camera, subscribes to a stream (its own when alone, somebody else's
    with --server) and reports the frames it received; the last one is written to basics-subscriber.png.

    \(ExampleSession.optionsHelp)
    """).answerHelp()

let seconds = ExampleSession.seconds()
await ExampleSession.run("basics") { example in
    let session = example.session
    let events = Events()
    session.delegate = events

    // Publish: a noise "camera" (any VideoCapture works: see the custom-capturer example) and a preview renderer.
    let preview = GrayscaleRenderer()
    let publisher = Publisher(
        name: "basics", videoCapture: NoiseCapturer(width: 640, height: 480, framesPerSecond: 30),
        videoRender: preview, delegate: events)
    try await session.publish(publisher)

    // Subscribe: somebody else's stream when joining a server, our own when alone.
    let stream = try await example.streamToSubscribe(besides: publisher)
    let view = GrayscaleRenderer()
    let subscriber = Subscriber(stream: stream, videoRender: view, delegate: events)
    try await session.subscribe(subscriber)

    try await Task.sleep(for: .seconds(seconds))

    print("preview: \(preview.frameCount) frames; subscriber: \(view.frameCount) frames in \(seconds) s"
          + (view.lastSize.map { " at \($0.width)x\($0.height)" } ?? ""))
    if view.frameCount > 0 {
        try view.writeImage(to: "basics-subscriber.png")
        print("last received frame written to basics-subscriber.png")
    }
    try await session.unsubscribe(subscriber)
    try await session.unpublish(publisher)
}
