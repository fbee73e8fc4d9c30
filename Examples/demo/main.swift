// TokKit demo: a real call on one machine, with nothing running beforehand.
//
//     swift run demo [--seconds N] [--out DIR] [--media-mode relayed|routed]   (defaults: 5 s, ./demo-out, relayed)
//
// 1. Starts the session server in this process on 127.0.0.1 (ephemeral port); with `--media-mode routed` it also
//    starts its own Janus (the embedded Janus, Docs/Routing.md) and the media goes through it.
// 2. Two participants, Alice and Bob, connect with signed tokens. Each publishes a noise camera and a 440 Hz tone
//    (a ToneAudioDevice stands in for the sound card) and subscribes to the other's stream: the media goes
//    VP8/Opus over DTLS-SRTP between them, over ICE on the machine's own address (127.0.0.1 when it has no
//    other), negotiated through the server's relay.
// 3. They chat with signals; each line arrives stamped with its true sender.
// 4. Every second it prints each stream's received frame rate and bitrate; at the end it writes what each one
//    saw as a grayscale PNG, Alice's view of Bob as a Y4M video, and the mixed audio both heard as a WAV file
//    whose strongest frequency it reports.
// 5. Everyone unsubscribes, unpublishes and disconnects, the server stops, the program exits.
import ExampleHelp
import Foundation
import Logging
import TokKit
import TokKitAudio
import TokKitCapture
import TokKitProtocol
import TokKitServer

ExampleUsage("""
    usage: demo [--seconds N] [--out DIR] [--media-mode relayed|routed] [--janus-interface ADDR]

    A real call on one machine: starts a session server in this process, Alice and Bob publish a noise camera
    and a tone, subscribe to each other and chat; what each saw and heard is written to DIR.

      --seconds N              how long the call lasts, 1-3600 (default 5)
      --out DIR                where the images, the Y4M recording and the WAV file go (default demo-out)
      --media-mode MODE        relayed (default): peer to peer through the server's relay; routed: each
                               participant uploads once to a Janus the server starts and supervises itself
      --janus-interface ADDR   routed: the IPv4 address Janus uses for media (default: the machine's first
                               non-loopback address; Janus ignores loopback interfaces, so routed mode needs
                               one, and the janus package: scripts/bootstrap installs it)
      -h, --help               print this help and exit
    """).answerHelp()

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}
let seconds = min(max(Int(option("--seconds") ?? "5") ?? 5, 1), 3_600)
let mediaMode = option("--media-mode") ?? "relayed"
guard mediaMode == "relayed" || mediaMode == "routed" else {
    FileHandle.standardError.write(Data("demo: --media-mode must be relayed or routed\n".utf8))
    exit(2)
}
let outDir = option("--out") ?? "demo-out"
try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
func label(_ name: String) -> String { name.padding(toLength: 6, withPad: " ", startingAt: 0) }

// One sound "card" for the process: a 440 Hz tone in, what the subscribers play out to a WAV file.
let audio = ToneAudioDevice(frequency: 440, renderFile: "\(outDir)/heard.wav")
try AudioDeviceManager.setAudioDevice(audio)

/// One participant: a session, a publisher with a noise camera and its preview.
final class Participant: Sendable {
    let name: String
    let session: Session
    let publisher: Publisher
    let preview = GrayscaleRenderer()
    let view = GrayscaleRenderer()

    init(name: String, apiKey: String, sessionID: String, serverURL: URL, seed: UInt64) {
        self.name = name
        var settings = SessionSettings()
        settings.logger.logLevel = .warning
        session = Session(apiKey: apiKey, sessionID: SessionID(sessionID), serverURL: serverURL, settings: settings)
        publisher = Publisher(
            name: "\(name)'s camera", videoCapture: NoiseCapturer(width: 320, height: 240, framesPerSecond: 15, seed: seed),
            videoRender: preview)
    }
}

var logger = Logger(label: "demo.server")
logger.logLevel = .warning
var configuration = ServerConfiguration(apiKey: "demo", apiSecret: "demo-secret-\(UInt64.random(in: 0...UInt64.max))")
if mediaMode == "routed" {
    // The server starts its own Janus (and stops it at the end); Janus needs a non-loopback address for media.
    configuration.embeddedJanus = EmbeddedJanusSettings(mediaAddress: option("--janus-interface"))
}
let server: TokKitServer
let port: Int
do {
    server = try TokKitServer(configuration: configuration, logger: logger)
    port = try await server.start()
} catch {
    FileHandle.standardError.write(Data("demo: cannot start the session server: \(error)\n".utf8))
    exit(1)
}
let url = URL(string: "http://127.0.0.1:\(port)")!
print("server  listening on \(url)")
let description = try await server.createSession(mediaMode: mediaMode == "routed" ? .routed : .relayed)
print("session \(description.sessionID)")

let alice = Participant(name: "Alice", apiKey: "demo", sessionID: description.sessionID, serverURL: url, seed: 1)
let bob = Participant(name: "Bob", apiKey: "demo", sessionID: description.sessionID, serverURL: url, seed: 2)
let everyone = [alice, bob]

// Print what each participant hears about, as it happens.
var listeners: [Task<Void, Never>] = []
for p in everyone {
    let events = p.session.events
    listeners.append(Task {
        for await event in events {
            switch event {
            case .connectionCreated(let c): print("\(label(p.name))sees connection \(c.data)")
            case .streamCreated(let s): print("\(label(p.name))sees stream \"\(s.name)\" (video \(s.hasVideo), audio \(s.hasAudio))")
            case .signalReceived(let type, let data, let from) where type == "chat":
                print("\(label(p.name))got chat from \(from?.data ?? "server"): \(data)")
            case .disconnected: return
            default: continue
            }
        }
    })
}

for p in everyone {
    let token = try await server.issueToken(sessionID: description.sessionID, role: .publisher, connectionData: p.name)
    try await p.session.connect(token: token.token)
    print("\(label(p.name))connected as \(p.session.connection?.connectionID ?? "?")")
}
for p in everyone { try await p.session.publish(p.publisher) }

// Subscribe each to the other's stream once it is known.
func waitForStream(of other: Participant, seenBy p: Participant) async throws -> SessionStream {
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline {
        if let s = p.session.streams.values.first(where: { $0.connection.data == other.name }) { return s }
        try await Task.sleep(for: .milliseconds(10))
    }
    throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "\(p.name) never saw \(other.name)'s stream"])
}
let recorder = try FileRenderer(path: "\(outDir)/alice-sees-bob.y4m")
var subscribers: [(Participant, Participant, Subscriber)] = []
for (p, other) in [(alice, bob), (bob, alice)] {
    let stream = try await waitForStream(of: other, seenBy: p)
    let subscriber = Subscriber(stream: stream, videoRender: p === alice ? TeeRenderer(p.view, recorder) : p.view)
    try await p.session.subscribe(subscriber)
    subscribers.append((p, other, subscriber))
    print("\(label(p.name))subscribed to \"\(stream.name)\"")
}

try await alice.session.signal(type: "chat", data: "Hi Bob, can you see my noise?")
try await bob.session.signal(type: "chat", data: "Loud and clear, Alice. And I hear your tone.")

// Live figures, once a second.
for second in 1...seconds {
    try await Task.sleep(for: .seconds(1))
    let lines = subscribers.map { p, other, s in
        let v = s.statistics.video, a = s.statistics.audio
        return "\(p.name) ← \(other.name): \(String(format: "%4.1f", v.framesPerSecond)) fps "
            + "\(String(format: "%4.0f", v.bitrate / 1_000)) kbps \(v.width)x\(v.height), "
            + "audio \(a.packetsDecoded) packets"
    }
    print("[\(second)s] " + lines.joined(separator: " | "))
}

for (p, other, subscriber) in subscribers {
    try await p.session.unsubscribe(subscriber)
    let path = "\(outDir)/\(p.name.lowercased())-sees-\(other.name.lowercased()).png"
    if p.view.frameCount > 0 { try p.view.writeImage(to: path, format: .png) }
    print("\(label(p.name))received \(p.view.frameCount) frames of \(other.name)'s video"
          + (p.view.frameCount > 0 ? "; the last one is \(path)" : ""))
}
try recorder.close()
print("Alice  recording of Bob: \(outDir)/alice-sees-bob.y4m (\(recorder.framesWritten) frames; try: ffplay \(outDir)/alice-sees-bob.y4m)")
for p in everyone {
    try await p.session.unpublish(p.publisher)
    await p.session.disconnect()
}
for l in listeners { _ = await l.value }
await server.stop()
print("heard   \(outDir)/heard.wav: \(audio.renderedFrames / 480) periods of 10 ms" + (strongestFrequency(of: "\(outDir)/heard.wav").map { ", strongest frequency \($0) Hz" } ?? ""))
print("done")
