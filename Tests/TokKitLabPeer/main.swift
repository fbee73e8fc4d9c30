// tokkit-lab-peer: one participant of a network-lab test, run inside a lab host (a network namespace). Joins a
// session, publishes a PatternCapturer picture and a tone, subscribes to every other stream, and reports on stdout,
// one JSON object a line, what happens and twice a second what it receives, until its stdin closes or --seconds
// pass. Then it unsubscribes, unpublishes, disconnects, prints {"event":"done"} and exits 0.
//
//   tokkit-lab-peer --server URL --api-key K --session S --token T [--name N] [--no-publish] [--no-subscribe]
//                   [--relay] [--custom-servers-only] [--ice-server URL [--ice-username U --ice-credential C]]
//                   [--width W --height H --fps F] [--content pattern|noise|textured|camera] [--seconds N] [--log-level L]
//                   [--stats-interval MS]
// Every line that carries "t" gives the milliseconds since the program started.
//
// Lines: {"event":"connected","connection":…}, {"event":"published","stream":…}, {"event":"subscribing","stream":…},
// {"event":"subscriberConnected","stream":…}, {"event":"subscriberFailed","stream":…,"code":…,"message":…},
// {"event":"subscriberDisconnected","stream":…}, {"event":"subscriberReconnecting","stream":…},
// {"event":"subscriberReconnected","stream":…}, {"event":"stats","stream":…,"frames":…,"patternFrames":…,"width":…,
// "height":…,"psnr":…,"audioPackets":…,"heardPeak":…,"pair":"host a:p -> srflx b:q","local":"host","remote":"srflx"},
// {"event":"error","code":…,"message":…}. Exits by itself after --seconds (default 60) + 30 s whatever happens.
import Dispatch
import Foundation
import Logging
import Synchronization
@_spi(Testing) import TokKit
import TokKitAudio
import TokKitCapture
import TokKitTesting

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}
func flag(_ name: String) -> Bool { arguments.contains(name) }

/// One JSON object per line on stdout, flushed at once (the test reads them as they come).
let output = Mutex(())
func report(_ fields: [String: any Sendable]) {
    // Identifiers are written as the strings they wrap (JSONSerialization knows only Foundation's types).
    let fields = fields.mapValues { value -> any Sendable in (value as? any OpaqueIdentifier)?.rawValue ?? value }
    guard let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]),
          let line = String(data: data, encoding: .utf8)
    else { return }
    output.withLock { _ in
        FileHandle.standardOutput.write(Data((line + "\n").utf8))  // write(2): no stdio buffer or lock
    }
}

guard let server = option("--server"), let apiKey = option("--api-key"), let sessionID = option("--session"),
      let token = option("--token")
else {
    print("usage: tokkit-lab-peer --server URL --api-key K --session S --token T [--name N] [--no-publish] "
          + "[--no-subscribe] [--relay] [--custom-servers-only] [--width W --height H --fps F] [--seconds N]")
    exit(2)
}
let seconds = min(max(Int(option("--seconds") ?? "") ?? 60, 1), 3_600)
let width = Int(option("--width") ?? "") ?? 320
let height = Int(option("--height") ?? "") ?? 240
let fps = Double(option("--fps") ?? "") ?? 30
let statsInterval = min(max(Int(option("--stats-interval") ?? "") ?? 500, 10), 10_000)
let started = ContinuousClock.now

// Never outlive the test by long.
let watchdog = DispatchSource.makeTimerSource(queue: .global())
watchdog.schedule(deadline: .now() + .seconds(seconds + 30))
watchdog.setEventHandler { report(["event": "error", "code": 0, "message": "watchdog"]); exit(3) }
watchdog.resume()

/// Log lines on stderr stamped with the milliseconds since the program started (as the report lines' "t"), so
/// that a timeline can be read off them (`--log-level debug`: each media connection's negotiation steps).
struct ElapsedLogHandler: LogHandler {
    var logLevel: Logger.Level = .error
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        let t = Double((ContinuousClock.now - started) / .microseconds(1)) / 1_000
        let fields = metadata.merging(event.metadata ?? [:]) { $1 }
        let text = fields.sorted { $0.key < $1.key }.map { " \($0)=\($1)" }.joined()
        FileHandle.standardError.write(Data(String(format: "t=%.1f %@ %@%@\n", t, "\(event.level)",
                                                   "\(event.message)", text).utf8))
    }
}

/// Set once stdin reaches its end (the test closed it: time to leave).
let stdinClosed = Atomic<Bool>(false)
// Raw read(2), not readLine: readLine holds stdin's FILE lock while it blocks, and fflush(nil) would wait for it.
Thread.detachNewThread {
    var byte: UInt8 = 0
    while read(0, &byte, 1) > 0 {}
    stdinClosed.store(true, ordering: .releasing)
}

/// The loudest sample played since the last `stats` lines (the mix of every subscription's audio): a tone of
/// another peer heard makes it about 8000.
let heardPeak = Atomic<Int>(0)

/// What one subscription receives.
final class Watched: Sendable {
    let subscriber: Subscriber
    let renderer = CountingRenderer()
    init(_ stream: SessionStream, delegate: any SubscriberDelegate) {
        subscriber = Subscriber(stream: stream, videoRender: renderer, delegate: delegate)
    }
}

/// Session, publisher and subscriber events as report lines; subscribes to every stream that appears.
final class Peer: SessionDelegate, PublisherDelegate, SubscriberDelegate {
    let subscribes: Bool
    let watched = Mutex<[StreamID: Watched]>([:])
    init(subscribes: Bool) { self.subscribes = subscribes }

    func session(_ session: Session, streamCreated stream: SessionStream) {
        guard subscribes else { return }
        let w = Watched(stream, delegate: self)
        watched.withLock { $0[stream.streamID] = w }
        report(["event": "subscribing", "stream": stream.streamID, "name": stream.name,
                "t": Double((ContinuousClock.now - started) / .microseconds(1)) / 1_000])
        Task {
            do throws(SessionError) { try await session.subscribe(w.subscriber) } catch {
                report(["event": "subscriberFailed", "stream": stream.streamID, "code": error.code,
                        "message": error.description])
            }
        }
    }
    func session(_ session: Session, streamDestroyed stream: SessionStream) {
        watched.withLock { _ = $0.removeValue(forKey: stream.streamID) }
        report(["event": "streamDestroyed", "stream": stream.streamID])
    }
    func session(_ session: Session, didFailWithError error: SessionError) {
        report(["event": "error", "code": error.code, "message": error.description])
    }
    func publisher(_ publisher: Publisher, didFailWithError error: SessionError) {
        report(["event": "publisherFailed", "code": error.code, "message": error.description])
    }
    func subscriberDidConnect(toStream subscriber: Subscriber) {
        report(["event": "subscriberConnected", "stream": subscriber.stream.streamID,
                "t": Double((ContinuousClock.now - started) / .microseconds(1)) / 1_000])
    }
    func subscriberDidDisconnect(fromStream subscriber: Subscriber) {
        report(["event": "subscriberDisconnected", "stream": subscriber.stream.streamID])
    }
    func subscriberDidStartReconnecting(toStream subscriber: Subscriber) {
        report(["event": "subscriberReconnecting", "stream": subscriber.stream.streamID])
    }
    func subscriberDidReconnect(toStream subscriber: Subscriber) {
        report(["event": "subscriberReconnected", "stream": subscriber.stream.streamID])
    }
    func subscriber(_ subscriber: Subscriber, didFailWithError error: SessionError) {
        watched.withLock { _ = $0.removeValue(forKey: subscriber.stream.streamID) }
        report(["event": "subscriberFailed", "stream": subscriber.stream.streamID, "code": error.code,
                "message": error.description])
    }

    /// One `stats` line per subscription, and a `health` line: the media negotiations still open (each holds a
    /// peer connection) and the subscriptions this peer still tracks.
    func reportStatistics(_ session: Session) {
        let negotiations = (session.mediaNegotiator as? WebRTCNegotiator)?.activeNegotiations ?? -1
        report(["event": "health", "negotiations": negotiations, "subscriptions": watched.withLock { $0.count }])
        let peak = heardPeak.exchange(0, ordering: .relaxed)
        for (streamID, w) in watched.withLock({ $0 }) {
            let seen = w.renderer.snapshot
            let stats = w.subscriber.statistics
            var fields: [String: any Sendable] = [
                "event": "stats", "stream": streamID, "frames": seen.frames, "patternFrames": seen.patternFrames,
                "width": seen.width, "height": seen.height, "psnr": seen.lastPSNR.map { $0.isFinite ? $0 : 99 } ?? 0,
                "audioPackets": Int(stats.audioTrack.packetsReceived),
                "videoPackets": Int(stats.videoTrack.packetsReceived), "heardPeak": peak,
                "videoLost": Int(stats.videoTrack.packetsLost), "nacksSent": stats.videoTrack.nacksSent,
                "videoBytes": Int(stats.videoTrack.bytesReceived), "bitrate": Int(stats.video.bitrate),
                "freezeCount": stats.video.freezeCount,
                "playoutDelayMs": Double(stats.video.playoutDelay / .microseconds(1)) / 1_000,
                "keyframeRequests": stats.video.keyframeRequests, "framesDropped": stats.video.framesDropped,
                "freezeSeconds": Double(stats.video.totalFreezesDuration / .milliseconds(1)) / 1_000,
                "framesSeconds": Double(stats.video.totalFramesDuration / .milliseconds(1)) / 1_000,
                "audioDecoded": stats.audio.packetsDecoded, "audioConcealed": stats.audio.packetsConcealed,
                "audioRecovered": stats.audio.packetsRecovered,
                "audioRecoveredRED": stats.audio.packetsRecoveredFromRedundancy,
                "audioHeld": stats.audio.packetsHeldForSync,
                "syncDelayMs": Double(stats.audio.syncDelay / .microseconds(1)) / 1_000,
                "syncLagMs": stats.audio.syncLag.map { Double($0 / .microseconds(1)) / 1_000 } ?? -1_000,
                // A routed subscription's downlink limit (0: none), Subscriber.bandwidthLimitedResolution.
                "limitWidth": w.subscriber.bandwidthLimitedResolution?.width ?? 0,
                "t": Double((ContinuousClock.now - started) / .microseconds(1)) / 1_000,
            ]
            if let pair = stats.candidatePair {
                fields["pair"] = pair.description
                fields["local"] = ICECandidatePair.name(pair.local.kind)
                fields["remote"] = ICECandidatePair.name(pair.remote.kind)
                fields["localAddress"] = pair.local.address
                fields["localPort"] = Int(pair.local.port)
                fields["remotePort"] = Int(pair.remote.port)
                fields["remoteAddress"] = pair.remote.address
            }
            report(fields)
        }
    }
}

do {
    try AudioDeviceManager.setAudioDevice(ToneAudioDevice(renderSink: { period in
        var peak = 0
        for sample in period { peak = max(peak, abs(Int(sample))) }
        if peak > heardPeak.load(ordering: .relaxed) { heardPeak.store(peak, ordering: .relaxed) }
    }))
    var settings = SessionSettings()
    settings.logger = Logger(label: "tokkit-lab-peer") { _ in ElapsedLogHandler() }
    settings.logger.logLevel = Logger.Level(rawValue: option("--log-level") ?? "error") ?? .error
    if flag("--relay") { settings.ice.transportPolicy = .relay }
    if flag("--custom-servers-only") { settings.ice.includeServers = .custom }
    if let url = option("--ice-server") {
        try settings.ice.addServer(url: url, username: option("--ice-username") ?? "",
                                   credential: option("--ice-credential") ?? "")
    }
    let session = Session(apiKey: apiKey, sessionID: SessionID(sessionID), serverURL: URL(string: server)!, settings: settings)
    let peer = Peer(subscribes: !flag("--no-subscribe"))
    session.delegate = peer
    try await session.connect(token: token)
    report(["event": "connected", "connection": session.connection?.connectionID.rawValue ?? "",
            "t": Double((ContinuousClock.now - started) / .microseconds(1)) / 1_000])
    var publisher: Publisher?
    if !flag("--no-publish") {
        // The pattern (its PSNR can be checked); noise, which no encoder can compress; or, 640x480, a picture
        // sequence: `textured` (camera-like, fills 1 Mbps) or `camera` (what Chromium's fake camera shows).
        let capturer: any VideoCapture = switch option("--content") {
        case "noise": NoiseCapturer(width: width, height: height, framesPerSecond: fps)
        case "textured": SequenceCapturer(.textured, framesPerSecond: fps)
        case "camera": SequenceCapturer(.pattern, framesPerSecond: fps)
        default: PatternCapturer(width: width, height: height, framesPerSecond: fps)
        }
        let p = Publisher(name: option("--name") ?? "lab-peer", videoCapture: capturer, delegate: peer)
        try await session.publish(p)
        report(["event": "published", "stream": p.stream?.streamID.rawValue ?? ""])
        publisher = p
    }
    let ticker = Task { [publisher] in
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(statsInterval))
            peer.reportStatistics(session)
            if let publisher {
                // What the encoder makes (bits/s over the last second) and what congestion control allows.
                let sent = publisher.statistics
                report(["event": "publisher", "encoderBitrate": Int(sent.video.bitrate),
                        "targetBitrate": sent.video.targetBitrate, "videoBytesSent": Int(sent.video.bytesEncoded),
                        "framesSkipped": sent.video.framesSkippedForBacklog, "framesEncoded": sent.video.framesEncoded,
                        "keyframeRequests": sent.video.keyframeRequests,
                        "declinedRepairKeyframes": sent.video.keyframesForDeclinedRepairs,
                        "encodedWidth": sent.video.encodedWidth, "encodedHeight": sent.video.encodedHeight,
                        "t": Double((ContinuousClock.now - started) / .microseconds(1)) / 1_000])
            }
        }
    }
    // Until stdin closes or the time is up, whichever comes first (stdin is read on a thread of its own).
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline, !stdinClosed.load(ordering: .acquiring) {
        try? await Task.sleep(for: .milliseconds(100))
    }
    ticker.cancel()
    peer.reportStatistics(session)
    for w in peer.watched.withLock({ Array($0.values) }) { try? await session.unsubscribe(w.subscriber) }
    if let publisher { try? await session.unpublish(publisher) }
    await session.disconnect()
    report(["event": "done"])
    exit(0)
} catch {
    report(["event": "error", "code": (error as? SessionError)?.code ?? 0, "message": "\(error)"])
    exit(1)
}
