// archive-bench: what recording a session costs (issue 16's benchmark). Prints figures, asserts nothing.
//
// A real TokKitServer in this process on 127.0.0.1 and, per stream count (1, 4, 9), a child process of this same
// binary (`--publish`) publishing that many 320x240 30 fps pattern + tone streams on loopback. Then, each for
// `--seconds` (10 by default):
//   baseline     nobody records: this process is the server, idle but for signalling;
//   individual   a SessionArchiver (one WebM per stream, no decode);
//   composed     a ComposedArchiver at 640x480 and at 1280x720 (decode every stream, one VP8 encode, audio mix).
// The recorder's CPU is this process's CPU time (getrusage: every thread) during the case minus the baseline's over
// the same length, measured in the same run; the publishers' encoding is in the child and does not count. Memory is
// this process's peak VmRSS during the case and its growth over the baseline's. Bytes written per second come from
// the files' growth over the measured window (after a 1 s warm-up that holds the joins and the first keyframes).
// Baseline for individual mode: `ffmpeg -c copy` remuxing the same files, its CPU and peak memory as GNU time reports
// them, its start-up and probing (the same command with `-t 0`) subtracted, per second of media.
//
// swift build -c release --product archive-bench && .build/release/archive-bench [--seconds S] [--streams 1,4,9]
//   [--resolutions 640x480,1280x720] [--receive-batching MS (the individual archiver's network thread; 0: none; SessionArchiver's 40 ms by default)]
import Foundation
import Logging
import TokKit
import TokKitArchiving
import TokKitProtocol
import TokKitServer

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--publish" { await PublisherChild.run(Array(arguments.dropFirst())) }

/// The command line.
struct Options {
    var seconds = 10.0
    var streamCounts = [1, 4, 9]
    var resolutions = ["640x480", "1280x720"]
    /// The individual archiver's receive batching in ms (ICEConfiguration.receiveBatching; `nil`: the archiver's
    /// default, `SessionArchiver.defaultReceiveBatching`; 0: none).
    var receiveBatching: Int?

    static func parse(_ arguments: [String]) -> Options {
        var options = Options(), index = 0
        while index < arguments.count {
            let value = index + 1 < arguments.count ? arguments[index + 1] : ""
            switch arguments[index] {
            case "--seconds" where (Double(value) ?? 0) >= 1: options.seconds = Double(value)!
            case "--streams": options.streamCounts = value.split(separator: ",").compactMap { Int($0) }
                .filter { (1...16).contains($0) }
            case "--resolutions": options.resolutions = value.split(separator: ",").map(String.init)
            case "--receive-batching" where (Int(value).map { (0...1000).contains($0) } ?? false):
                options.receiveBatching = Int(value)!
            default:
                FileHandle.standardError.write(Data(
                    "usage: archive-bench [--seconds S>=1] [--streams 1,4,9] [--resolutions 640x480,1280x720] [--receive-batching MS]\n".utf8))
                exit(2)
            }
            index += 2
        }
        return options
    }
}

let options = Options.parse(arguments)
let seconds = options.seconds
let individualBatching: Duration? = options.receiveBatching.map { $0 == 0 ? nil : .milliseconds($0) }
    ?? SessionArchiver.defaultReceiveBatching

func figure(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }

/// Bytes of the regular files under `directory` now.
func bytes(under directory: String) -> Int64 {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.reduce(0) { total, name in
        let size = (try? FileManager.default.attributesOfItem(atPath: "\(directory)/\(name)"))?[.size] as? NSNumber
        return total + (size?.int64Value ?? 0)
    }
}

/// What one measured window used: CPU seconds of this process, its peak RSS, the bytes written.
struct Window {
    var cpu: Double
    var peakMiB: Double
    var written: Int64
}

/// Holds for `seconds` after a `warmUp`, sampling RSS every 100 ms; `written` is read at both ends of the window.
func measure(seconds: Double, warmUp: Duration, written: () -> Int64) async throws -> Window {
    try await Task.sleep(for: warmUp)
    let cpu0 = ProcessUsage.cpuSeconds(), bytes0 = written()
    var peak = ProcessUsage.residentMiB()
    let end = ContinuousClock.now + .milliseconds(Int(seconds * 1_000))
    while ContinuousClock.now < end {
        try await Task.sleep(for: .milliseconds(100))
        peak = max(peak, ProcessUsage.residentMiB())
    }
    return Window(cpu: ProcessUsage.cpuSeconds() - cpu0, peakMiB: peak, written: written() - bytes0)
}

/// `ffmpeg -c copy` of each file: CPU seconds per second of media beyond ffmpeg's start-up, and its peak memory.
/// ffmpeg runs under GNU time (`/usr/bin/time`, which reports the CPU and peak RSS of ffmpeg from wait4): a child
/// spawned from this process directly would report this process's peak RSS as its own (the kernel carries the
/// spawning address space's high-water mark across exec).
func ffmpegCopy(_ files: [String], mediaSeconds: Double, into directory: String) async throws
    -> (cpuPerSecond: Double, startup: Double, peakMiB: Double) {
    /// CPU seconds and peak RSS (MiB) of one ffmpeg run.
    func timed(_ arguments: [String]) async throws -> (cpu: Double, peakMiB: Double) {
        let report = "\(directory)/time-report"
        let child = try ChildProcess.spawn("/usr/bin/time", ["time", "-f", "%U %S %M", "-o", report, "ffmpeg",
                                                             "-nostdin", "-v", "error", "-y"] + arguments)
        let exit = await child.wait()
        let fields = ((try? String(contentsOfFile: report, encoding: .utf8)) ?? "")
            .split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard exit.status == 0, fields.count == 3 else {
            throw ChildProcess.Failure(description: "ffmpeg \(arguments) under /usr/bin/time: status \(exit.status)")
        }
        return (fields[0] + fields[1], fields[2] / 1024)
    }
    var cpu = 0.0, startup = 0.0, peak = 0.0
    for (n, file) in files.enumerated() {
        let whole = try await timed(["-i", file, "-c", "copy", "\(directory)/copy-\(n).webm"])
        let empty = try await timed(["-i", file, "-t", "0", "-c", "copy", "-f", "null", "-"])
        cpu += whole.cpu
        startup += empty.cpu
        peak = max(peak, whole.peakMiB)
    }
    return (max(0, cpu - startup) / mediaSeconds, startup / Double(max(1, files.count)), peak)
}

var logger = Logger(label: "archive-bench")
logger.logLevel = .error
let apiKey = "archive-bench", apiSecret = "archive-bench-secret-\(UInt64.random(in: 0...UInt64.max))"
let server = try TokKitServer(configuration: ServerConfiguration(apiKey: apiKey, apiSecret: apiSecret), logger: logger)
let url = URL(string: "http://127.0.0.1:\(try await server.start())")!
let root = FileManager.default.temporaryDirectory.appendingPathComponent("archive-bench-\(getpid())").path
try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
print("archive-bench: \(figure(seconds, 0)) s per case, publishers 320x240 30 fps + Opus tone in a child process;",
      "recorder CPU = process CPU minus the same run's no-recording baseline; individual receive batching",
      individualBatching.map { "\($0)" } ?? "none")

for count in options.streamCounts {
    let sessionID = try await server.createSession().sessionID
    var tokens: [String] = []
    for _ in 0..<count { tokens.append(try await server.issueToken(sessionID: sessionID).token) }
    let child = try ChildProcess.spawn("/proc/self/exe", ["archive-bench", "--publish", url.absoluteString, apiKey,
                                                          sessionID] + tokens, attached: true)
    let published = await child.awaitLines(prefix: "published", count: count, timeout: .seconds(60))
    guard published == count else {
        child.kill()
        _ = await child.wait()
        print("streams \(count): only \(published) published within 60 s; skipped")
        continue
    }
    let baseline = try await measure(seconds: seconds, warmUp: .seconds(2)) { 0 }
    let baselineRSS = ProcessUsage.residentMiB()
    print("streams \(count) baseline: server \(figure(baseline.cpu / seconds * 100)) %core, rss \(figure(baselineRSS, 1)) MiB")

    func report(_ name: String, _ window: Window, extra: String) {
        let share = max(0, window.cpu - baseline.cpu) / seconds * 100
        print("streams \(count) \(name): recorder \(figure(share)) %core (\(figure(share / Double(count))) %core/stream),",
              "rss peak \(figure(window.peakMiB, 1)) MiB (+\(figure(window.peakMiB - baselineRSS, 1))),",
              "written \(figure(Double(window.written) / seconds / 1_000, 1)) kB/s; \(extra)")
    }

    // Individual mode.
    let directory = "\(root)/individual-\(count)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let recorderToken = try await server.issueToken(sessionID: sessionID, role: .subscriber).token
    let individual = try await SessionArchiver.start(
        serverURL: url, apiKey: apiKey, sessionID: SessionID(sessionID), token: recorderToken, directory: directory,
        ice: .loopback, receiveBatching: individualBatching, logger: logger)
    let started = ContinuousClock.now
    let window = try await measure(seconds: seconds, warmUp: .seconds(1)) { bytes(under: directory) }
    let files = await individual.stop()
    let elapsed = (ContinuousClock.now - started).components
    let recorded = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    report("individual", window, extra: "\(files.count) files, video frames \(files.map(\.videoFrames)), "
           + "audio packets \(files.map(\.audioPackets))")
    do {
        let copy = try await ffmpegCopy(files.map(\.path), mediaSeconds: recorded, into: directory)
        print("streams \(count) ffmpeg -c copy: \(figure(copy.cpuPerSecond * 100)) %core (\(figure(copy.cpuPerSecond * 100 / Double(count))) %core/stream)",
              "beyond a start-up of \(figure(copy.startup * 1_000, 1)) ms CPU per file, peak rss \(figure(copy.peakMiB, 1)) MiB")
    } catch {
        print("streams \(count) ffmpeg -c copy: \(error)")
    }

    // Composed mode.
    for resolution in options.resolutions {
        let path = "\(root)/composed-\(count)-\(resolution).webm"
        let token = try await server.issueToken(sessionID: sessionID, role: .subscriber).token
        let composed = try await ComposedArchiver.start(
            serverURL: url, apiKey: apiKey, sessionID: SessionID(sessionID), token: token, path: path,
            settings: try ComposedArchiveSettings(resolution: resolution), ice: .loopback, logger: logger)
        let window = try await measure(seconds: seconds, warmUp: .seconds(1)) {
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
        }
        let result = await composed.stop()
        report("composed \(resolution)", window, extra: "video frames \(result.videoFrames), decoded "
               + "\(result.streams.map(\.framesDecoded)), audio packets \(result.audioPackets)"
               + (result.failure.map { ", failure \($0)" } ?? ""))
    }
    child.kill()
    _ = await child.wait()
}
await server.stop()
try? FileManager.default.removeItem(atPath: root)
