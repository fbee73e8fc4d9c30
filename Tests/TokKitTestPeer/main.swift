// tokkit-test-peer: a second process for TokKit's two-process test. Joins a session and publishes a
// PatternCapturer (and a ToneAudioDevice tone) until its stdin closes, then unpublishes, disconnects and exits.
//
//   tokkit-test-peer <serverURL> <apiKey> <sessionID> <token> [width height fps]
//
// Prints `published <streamID>` once the stream exists, `done` when it leaves. Exits by itself after 120 s
// whatever happens, so it never outlives a crashed test by long.
import struct FoundationEssentials.URL
import Dispatch
import Logging
import TokKit
import TokKitAudio
import TokKitTesting

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count == 5 || arguments.count == 8 else {
    print("usage: tokkit-test-peer <serverURL> <apiKey> <sessionID> <token> [width height fps]")
    exit(2)
}
let width = arguments.count == 8 ? Int(arguments[5]) ?? 320 : 320
let height = arguments.count == 8 ? Int(arguments[6]) ?? 240 : 240
let fps = arguments.count == 8 ? Double(arguments[7]) ?? 30 : 30

// Never outlive the test by much.
let watchdog = DispatchSource.makeTimerSource(queue: .global())
watchdog.schedule(deadline: .now() + 120)
watchdog.setEventHandler { exit(3) }
watchdog.resume()

do {
    try AudioDeviceManager.setAudioDevice(ToneAudioDevice())
    var settings = SessionSettings()
    settings.logger.logLevel = .error
    let session = Session(apiKey: arguments[2], sessionID: SessionID(arguments[3]), serverURL: URL(string: arguments[1])!, settings: settings)
    try await session.connect(token: arguments[4])
    let capturer = PatternCapturer(width: width, height: height, framesPerSecond: fps)
    let publisher = Publisher(name: "test-peer", videoCapture: capturer)
    try await session.publish(publisher)
    print("published \(publisher.stream?.streamID ?? "?")")
    fflush(nil)
    while readLine() != nil {}
    try? await session.unpublish(publisher)
    await session.disconnect()
    print("done frames=\(capturer.framesDelivered)")
    fflush(nil)
    exit(0)
} catch {
    print("error \(error)")
    fflush(nil)
    exit(1)
}
