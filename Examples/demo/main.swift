// TokKit demo: everything on one machine, nothing running beforehand.
//
//     swift run demo [--seconds N] [--out DIR]            (defaults: 3 s, ./demo-out)
//
// 1. Starts the session server in this process on 127.0.0.1 (ephemeral port).
// 2. Two participants, Alice and Bob, connect with signed tokens, each publishes a stream from a noise
//    capturer and subscribes to the other's stream (negotiated through the server's relay).
// 3. They chat with signals; each line arrives stamped with its true sender.
// 4. Each publisher's preview (capturer → I420 → grayscale renderer) runs for N seconds and is written as a PNG;
//    Alice's is also recorded as a Y4M file that ffmpeg plays.
// 5. Everyone unpublishes and disconnects, the server stops, the program exits.
//
// Media over the network (VP8/Opus over SRTP between the participants) is not wired yet: the transport layers
// exist (TokKitICE/DTLS/SRTP/RTP/SDP) but the publisher/subscriber media pipeline is the next step.
import Foundation
import Logging
import TokKit
import TokKitCapture
import TokKitProtocol
import TokKitServer

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}
let seconds = Int(option("--seconds") ?? "3") ?? 3
let outDir = option("--out") ?? "demo-out"
try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)

/// One participant: a session, a publisher with a noise camera and its preview, chat lines received.
final class Participant: Sendable {
    let name: String
    let session: Session
    let publisher: Publisher
    let preview: LocalPreview
    let renderer = GrayscaleRenderer()

    init(name: String, apiKey: String, sessionId: String, serverURL: String, seed: UInt64) {
        self.name = name
        var settings = SessionSettings()
        settings.logger.logLevel = .warning
        session = Session(apiKey: apiKey, sessionId: sessionId, serverURL: serverURL, settings: settings)
        let camera = NoiseCapturer(width: 320, height: 240, framesPerSecond: 15, seed: seed)
        publisher = Publisher(name: "\(name)'s noise camera", videoCapture: camera, videoRender: renderer)
        preview = LocalPreview(capturer: camera, renderer: renderer)
    }
}

var logger = Logger(label: "demo.server")
logger.logLevel = .warning
let server = try TokKitServer(
    configuration: ServerConfiguration(apiKey: "demo", apiSecret: "demo-secret-\(UInt64.random(in: 0...UInt64.max))"),
    logger: logger)
let port = try await server.start()
let url = "http://127.0.0.1:\(port)"
print("server  listening on \(url)")
let description = try await server.createSession()
print("session \(description.sessionId)")

let alice = Participant(name: "Alice", apiKey: "demo", sessionId: description.sessionId, serverURL: url, seed: 1)
let bob = Participant(name: "Bob", apiKey: "demo", sessionId: description.sessionId, serverURL: url, seed: 2)
let everyone = [alice, bob]

// Print what each participant hears about, as it happens.
var listeners: [Task<Void, Never>] = []
for p in everyone {
    let events = p.session.events
    listeners.append(Task {
        for await event in events {
            switch event {
            case .connectionCreated(let c): print("\(p.name.padding(toLength: 6, withPad: " ", startingAt: 0))sees connection \(c.data)")
            case .streamCreated(let s): print("\(p.name.padding(toLength: 6, withPad: " ", startingAt: 0))sees stream \"\(s.name)\" (video \(s.hasVideo), audio \(s.hasAudio))")
            case .signalReceived(let type, let data, let from) where type == "chat":
                print("\(p.name.padding(toLength: 6, withPad: " ", startingAt: 0))got chat from \(from?.data ?? "server"): \(data)")
            case .disconnected: return
            default: continue
            }
        }
    })
}

for p in everyone {
    let token = try await server.issueToken(sessionId: description.sessionId, role: .publisher, connectionData: p.name)
    try await p.session.connect(token: token.token)
    print("\(p.name.padding(toLength: 6, withPad: " ", startingAt: 0))connected as \(p.session.connection?.connectionId ?? "?")")
}
for p in everyone {
    try await p.session.publish(p.publisher)
    try p.preview.start()
}

// Subscribe each to the other's stream once it is known.
func waitForStream(of other: Participant, seenBy p: Participant) async throws -> TokKit.Stream {
    let deadline = ContinuousClock.now + .seconds(5)
    while ContinuousClock.now < deadline {
        if let s = p.session.streams.values.first(where: { $0.connection.data == other.name }) { return s }
        try await Task.sleep(for: .milliseconds(10))
    }
    throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "\(p.name) never saw \(other.name)'s stream"])
}
var subscribers: [(Participant, Subscriber)] = []
for (p, other) in [(alice, bob), (bob, alice)] {
    let stream = try await waitForStream(of: other, seenBy: p)
    let subscriber = Subscriber(stream: stream)
    try await p.session.subscribe(subscriber)
    subscribers.append((p, subscriber))
    print("\(p.name.padding(toLength: 6, withPad: " ", startingAt: 0))subscribed to \"\(stream.name)\"")
}

try await alice.session.signal(type: "chat", data: "Hi Bob, can you see my noise?")
try await bob.session.signal(type: "chat", data: "Loud and clear, Alice.")

// Let the previews run, recording Alice's to a Y4M file too.
let recorder = try FileRenderer(path: "\(outDir)/alice-preview.y4m")
let recording = LocalPreview(capturer: NoiseCapturer(width: 320, height: 240, framesPerSecond: 15, seed: 1), renderer: recorder)
try recording.start()
try await Task.sleep(for: .seconds(seconds))
recording.stop()
try recorder.close()

for p in everyone {
    p.preview.stop()
    let path = "\(outDir)/\(p.name.lowercased())-preview.png"
    try p.renderer.writeImage(to: path, format: .png)
    print("\(p.name.padding(toLength: 6, withPad: " ", startingAt: 0))preview: \(p.preview.framesRendered) frames in \(seconds) s (\(String(format: "%.1f", Double(p.preview.framesRendered) / Double(seconds))) fps), last frame written to \(path)")
}
print("Alice  recording: \(outDir)/alice-preview.y4m (\(recording.framesRendered) frames; try: ffplay \(outDir)/alice-preview.y4m)")

for (p, subscriber) in subscribers { try await p.session.unsubscribe(subscriber) }
for p in everyone {
    try await p.session.unpublish(p.publisher)
    await p.session.disconnect()
}
for l in listeners { _ = await l.value }
await server.stop()
print("done")
