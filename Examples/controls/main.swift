// controls: the tutorial's "mute and swap camera" chapter. While a call runs: mute and unmute the microphone
// (publishAudio), mute a subscriber's audio (subscribeToAudio), turn the video off and on (publishVideo), and
// swap the camera by giving the publisher another capturer; the stream goes on.
//
//     swift run controls [--server URL] [--seconds N]
//
// With V4L2 cameras attached, it swaps between the first two (or the first and a noise pattern); without any,
// between two noise "cameras" of different sizes, so the swap shows in the received frame size.
import ExampleHelp
import ExampleSupport
import Foundation
import TokKit
import TokKitCapture

/// Prints what the other end sees of each control (the subscriber's side comes from `subscriber.events` below).
final class Events: SessionDelegate {
    func session(_ session: Session, stream: SessionStream, didChange change: StreamPropertyChange) {
        print("  session: stream \"\(stream.name)\" changed: \(change)")
    }
}

/// The two "cameras" to swap between.
func cameras() -> (any VideoCapture, any VideoCapture) {
    let found = CameraCapturer.availableCameras()
    switch found.count {
    case 0: return (NoiseCapturer(width: 640, height: 480, seed: 1), NoiseCapturer(width: 320, height: 240, seed: 2))
    case 1: return (CameraCapturer(camera: .index(0)), NoiseCapturer(width: 320, height: 240, seed: 2))
    default: return (CameraCapturer(camera: .index(0)), CameraCapturer(camera: .index(1)))
    }
}

ExampleUsage("""
    usage: controls [--server URL] [--seconds N]

    While a call runs: mutes and unmutes the microphone, mutes a subscriber's audio, turns the video off and on
    and swaps the camera (two V4L2 cameras, or noise patterns), printing what the other end sees of each.

    \(ExampleSession.optionsHelp)
    """).answerHelp()

let step = Duration.seconds(max(ExampleSession.seconds(), 7)) / 7
await ExampleSession.run("controls") { example in
    let session = example.session
    let events = Events()
    session.delegate = events

    let (front, back) = cameras()
    let publisher = Publisher(name: "controls", videoCapture: front)
    try await session.publish(publisher)
    let stream = try await example.streamToSubscribe(besides: publisher)
    let view = GrayscaleRenderer()
    let subscriber = Subscriber(stream: stream, videoRender: view)
    // The subscriber's events as values, the same a SubscriberDelegate gets; the stream ends after .disconnected.
    let watcher = Task {
        for await event in subscriber.events {
            switch event {
            case .videoDisabled(let reason): print("  subscriber: video disabled (\(reason))")
            case .videoEnabled(let reason): print("  subscriber: video enabled (\(reason))")
            case .disconnected: print("  subscriber: disconnected")
            case .reconnecting: print("  subscriber: media lost, reconnecting")
            case .reconnected: print("  subscriber: reconnected")
            case .connected, .failed, .statisticsUpdated: break
            }
        }
    }
    try await session.subscribe(subscriber)

    func report(_ what: String) async throws {
        print("\(what)")
        try await Task.sleep(for: step)
        print("  receiving: \(view.frameCount) frames so far" + (view.lastSize.map { ", \($0.width)x\($0.height)" } ?? ""))
    }

    try await report("call running")
    publisher.publishAudio = false
    try await report("microphone muted (publishAudio = false)")
    publisher.publishAudio = true
    subscriber.subscribeToAudio = false
    try await report("microphone on; subscriber's audio muted (subscribeToAudio = false)")
    subscriber.subscribeToAudio = true
    publisher.publishVideo = false
    try await report("video off (publishVideo = false)")
    publisher.publishVideo = true
    try await report("video on")
    publisher.videoCapture = back
    try await report("camera swapped")
    publisher.videoCapture = front
    try await report("camera swapped back")

    try await session.unsubscribe(subscriber)
    await watcher.value
    try await session.unpublish(publisher)
}
