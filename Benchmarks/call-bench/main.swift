import CBenchSystem
import Foundation
import Synchronization
import TokKitCodecs
import TokKitMedia
import TokKitPeer
import TokKitSDP
import TokKitTesting
import TokKitStreaming

// A loopback call in one process: 640x480 at 30 fps VP8 (~1 Mbps) + Opus, both directions, over 127.0.0.1
// PeerConnections, through TokKitStreaming's pipelines. Prints one "name value unit" line per figure.
//
//   swift run -c release call-bench [--duration SECONDS] [--content pattern|textured] [--call-only] [--rounds N]
//
// --rounds N (default 1) runs the two-way call and then aiortc's N times, alternating, and prints each round's
// CPU ratio and latency, then over the rounds the median, lowest and highest CPU ratio and the median p50, median p99
// and highest p99: one run of each carries a few points of this machine's noise.
//
// Defaults: 20 s, the `textured` content (PictureSequence: camera-like, fills 1 Mbps; `pattern` is what Chromium's
// fake camera shows, which VP8 encodes in about 300 kbps). --call-only runs just the two-way call (for profiling: no
// baseline, no aiortc, no fan-out).
//
// Figures: process CPU as % of one core, frames per second delivered, capture-to-render latency p50/p99 (and, for
// the slowest 1 % of frames, how much of it came before and after their last packet arrived), bytes per second;
// the codec work alone on the same frames (baseline) and the call/baseline ratio; the CPU
// of one publisher with 1, 2, 3 subscribers; encodes per published frame (must be 1); and the same call run with
// aiortc 1.16 right after (Benchmarks/aiortc-call), with TokKit/aiortc ratios of CPU and latency. Both jobs send the
// same pictures (PictureSequence, handed to aiortc as a raw I420 file) and the same 440 Hz tone. The call also
// prints its CPU per thread group ("thread_cpu <group> <value> %core"), and each job the share of the machine's CPU
// time the hypervisor took while it ran (steal: on a shared host it stretches latency and CPU both).

let arguments = CommandLine.arguments
let duration: Double = {
    if let i = arguments.firstIndex(of: "--duration"), i + 1 < arguments.count, let d = Double(arguments[i + 1]), d > 0 {
        return d
    }
    return 20
}()
let callOnly = arguments.contains("--call-only")
let rounds: Int = {
    guard let i = arguments.firstIndex(of: "--rounds") else { return 1 }
    guard i + 1 < arguments.count, let n = Int(arguments[i + 1]), (1...20).contains(n) else {
        print("call-bench: --rounds takes a whole number from 1 to 20")
        exit(2)
    }
    return n
}()
let content: PictureSequence.Content = {
    guard let i = arguments.firstIndex(of: "--content") else { return .textured }
    guard i + 1 < arguments.count, let c = PictureSequence.Content(rawValue: arguments[i + 1]) else {
        print("call-bench: --content takes one of", PictureSequence.Content.allCases.map(\.rawValue).joined(separator: ", "))
        exit(2)
    }
    return c
}()
let width = PictureSequence.width, height = PictureSequence.height, fps = 30

func report(_ name: String, _ value: Double, _ unit: String) {
    print(name, value.isFinite ? String(format: "%.2f", value) : "nan", unit)
}

/// Process CPU seconds (user + system) so far.
func processCPU() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p + 0.5))]
}

// MARK: - Source material

/// The picture sequence both jobs send (aiortc's reads it from a file this benchmark writes).
let pictures = PictureSequence(content)
let i420 = VideoFormat.i420(width: width, height: height, fps: Double(fps))

/// Lends the source frames (one lease for all, as a capturer keeps one).
let sourceLease = FrameLease()

/// Hands out borrowed I420 frames of the picture sequence, as a camera does from its own buffers.
func withSourceFrame(_ n: Int, timestamp: Duration, _ body: (VideoFrame) -> Void) {
    pictures.withFrame(n) { y, u, v in
        _ = try? sourceLease.lend(format: i420, borrowing: y, u, v, timestamp: timestamp) { frame in body(frame) }
    }
}

/// 10 ms of a 440 Hz tone at 48 kHz mono, period `n`.
func tone(_ n: Int) -> [Int16] {
    (0..<480).map { i in Int16(8_000 * sin(2 * Double.pi * 440 * Double(n * 480 + i) / 48_000)) }
}
let tonePeriods = (0..<100).map(tone)

// MARK: - Baseline: the codec work alone

/// The codec work alone, in CPU seconds per second of one direction, and its stages: 30 × (copy of the borrowed
/// frame into a pooled one, VP8 encode, VP8 decode) + 50 × (Opus encode + decode), on one thread, on the same
/// pictures and settings as the call. The stages are timed with the thread's CPU clock, so they show which of the
/// call's threads costs more than its share of this work.
struct Baseline {
    var total = 0.0
    var copy = 0.0
    var vp8Encode = 0.0
    var vp8Decode = 0.0
    var opus = 0.0
}

/// CPU seconds the calling thread has used.
func threadCPU() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

func measureBaseline(seconds: Double) throws -> Baseline {
    let pool = VideoFramePool(capacity: 3)
    let encoder = try VP8Encoder(settings: VP8EncoderSettings(width: width, height: height, framesPerSecond: fps,
                                                              bitrate: 1_000_000))
    let decoder = try VP8Decoder(poolCapacity: 2)
    let opus = try OpusEncoder(settings: OpusEncoderSettings())
    let opusDecoder = try OpusDecoder()
    var packet = [UInt8](repeating: 0, count: OpusEncoder.maximumPacketSize)
    var pcm = [Int16](repeating: 0, count: 960)
    let frames = Int(seconds * Double(fps))
    var stages = Baseline()
    let start = processCPU()
    var decodeFailures = 0
    for n in 0..<frames {
        withSourceFrame(n, timestamp: .milliseconds(33 * n)) { frame in
            let t0 = threadCPU()
            guard let copy = try? frame.copy(using: pool) else { return }
            let t1 = threadCPU()
            var decoding = 0.0
            try? encoder.encode(copy) { encoded in
                let d0 = threadCPU()
                do throws(CodecError) { _ = try decoder.decode(encoded.bytes) } catch { decodeFailures += 1 }
                decoding += threadCPU() - d0
            }
            stages.copy += t1 - t0
            stages.vp8Encode += threadCPU() - t1 - decoding
            stages.vp8Decode += decoding
        }
        // 50 Opus packets per 30 frames.
        let o0 = threadCPU()
        for k in 0..<((n * 5 + 5) / 3 - (n * 5) / 3) {
            let input = (tonePeriods[(2 * (n + k)) % 100] + tonePeriods[(2 * (n + k) + 1) % 100])
            let length = input.withUnsafeBufferPointer { src in
                packet.withUnsafeMutableBytes { (try? opus.encode(src, into: $0)) ?? 0 }
            }
            packet.withUnsafeBytes { p in
                pcm.withUnsafeMutableBufferPointer { out in
                    _ = try? opusDecoder.decode(UnsafeRawBufferPointer(rebasing: p[0..<length]), into: out)
                }
            }
        }
        stages.opus += threadCPU() - o0
    }
    if decodeFailures > 0 { print("# baseline: \(decodeFailures) decode failures") }
    stages.total = processCPU() - start
    for path in [\Baseline.total, \.copy, \.vp8Encode, \.vp8Decode, \.opus] { stages[keyPath: path] /= seconds }
    return stages
}

// MARK: - What waking a thread costs here

/// What a context switch costs this process on this machine, in CPU seconds, in the two cases that differ by an
/// order of magnitude on a virtual machine:
/// - `fromIdle`: a thread woken on a CPU that was idle (halted). A lone 500 Hz `PeriodicThread`, the pattern of the
///   capture and sound-card clocks, for `seconds`: process CPU per tick. On a quiet machine every tick wakes an
///   idle CPU (`idleEntriesPerTick`, from the system's cpuidle counters, shows how nearly).
/// - `busy`: a switch from one runnable thread to another, no CPU going idle: two `MediaThread`s pinned to one
///   CPU hand a token back and forth through two semaphores (the pipelines' hand-off), 20 000 times at most and for
///   `seconds` at most: process CPU per switch.
struct WakeCosts {
    var fromIdle: Double
    var idleEntriesPerTick: Double
    var busy: Double

    static func measure(seconds: Double) -> WakeCosts {
        let idle0 = cpuIdleEntries(), cpu0 = processCPU()
        let ticks = Atomic<Int>(0)
        let ticker = PeriodicThread(name: "bench-wake-tick", interval: .milliseconds(2)) {
            ticks.add(1, ordering: .relaxed)
            return true
        }
        Thread.sleep(forTimeInterval: seconds)
        ticker.stop()
        let tickCount = Double(max(ticks.load(ordering: .relaxed), 1))
        let fromIdle = (processCPU() - cpu0) / tickCount
        var idleEntries = Double.nan
        if let before = idle0, let after = cpuIdleEntries() { idleEntries = Double(after - before) / tickCount }
        return WakeCosts(fromIdle: fromIdle, idleEntriesPerTick: idleEntries, busy: busySwitchCost(seconds: seconds))
    }

    /// See ``WakeCosts``: CPU per switch of two threads pinned to CPU 0 passing a token back and forth.
    private static func busySwitchCost(seconds: Double) -> Double {
        let ping = DispatchSemaphore(value: 0), pong = DispatchSemaphore(value: 0)
        final class Flag: Sendable { let raised = Atomic<Bool>(false) }
        let done = Flag()
        let maximumRounds = 20_000
        let deadline = MonotonicClock.now() + .nanoseconds(Int64(seconds * 1e9))
        let rounds = Atomic<Int>(0)
        let switches0 = ThreadCPU.switches(), cpu0 = processCPU()
        let responder = MediaThread(name: "bench-wake-pong") { _ in
            pinToFirstCPU()
            while true {
                ping.wait()
                if done.raised.load(ordering: .acquiring) { return }
                pong.signal()
            }
        }
        let caller = MediaThread(name: "bench-wake-ping") { _ in
            pinToFirstCPU()
            var n = 0
            while n < maximumRounds, n % 256 != 0 || MonotonicClock.now() < deadline {
                ping.signal()
                pong.wait()
                n += 1
            }
            rounds.store(n, ordering: .relaxed)
        }
        caller.stop()
        let cpu = processCPU() - cpu0
        let switches = ThreadCPU.difference(from: switches0, to: ThreadCPU.switches())
            .filter { $0.group.hasPrefix("bench-wake-p") }.map(\.value).reduce(0, +)
        done.raised.store(true, ordering: .releasing)
        ping.signal()
        responder.stop()
        return rounds.load(ordering: .relaxed) > 0 ? cpu / Double(max(switches, 1)) : .nan
    }

    /// Binds the calling thread to CPU 0 (if that fails, the figure is a mix of both kinds of switch).
    private static func pinToFirstCPU() {
        if bench_pin_thread_to_cpu(0) != 0 { print("# switch_busy_cpu_cost: could not pin a thread (errno \(errno))") }
    }

    /// The CPU `switches` context switches a second cost when `idleEntries` of them a second woke an idle CPU.
    func cpu(switches: Double, idleEntries: Double) -> Double {
        let fromIdle = min(idleEntries, switches)
        return fromIdle * self.fromIdle + (switches - fromIdle) * busy
    }
}

/// How many times every CPU of the machine has entered an idle state so far (the sum of cpuidle's `usage`
/// counters: system-wide, other processes included), or nil where cpuidle is not exposed.
func cpuIdleEntries() -> Int? {
    let root = "/sys/devices/system/cpu"
    guard let cpus = try? FileManager.default.contentsOfDirectory(atPath: root) else { return nil }
    var total: Int?
    for cpu in cpus where cpu.hasPrefix("cpu") && cpu.dropFirst(3).allSatisfy(\.isNumber) {
        let directory = "\(root)/\(cpu)/cpuidle"
        for state in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where state.hasPrefix("state") {
            guard let text = try? String(contentsOfFile: "\(directory)/\(state)/usage", encoding: .utf8),
                  let count = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            else { continue }
            total = (total ?? 0) + count
        }
    }
    return total
}

// MARK: - The call

/// One direction of media: a publisher's pipelines sending to a set of subscribers' pipelines.
final class Direction: Sendable {
    let video: VideoSendPipeline
    let audio: AudioSendPipeline
    let bus: MediaAudioBus
    let peers: Mutex<[(publisher: PeerConnection, subscriber: PeerConnection)]> = Mutex([])
    let receivers = Mutex<[VideoReceivePipeline]>([])
    let audioReceivers = Mutex<[AudioReceivePipeline]>([])
    /// Capture-to-render latency of each rendered frame, and the part of it until the frame's last packet arrived.
    let latencies = Mutex<[(total: Double, toReceive: Double)]>([])
    let capture: Mutex<PeriodicThread?> = Mutex(nil)
    let audioClock: Mutex<PeriodicThread?> = Mutex(nil)
    let frameNumber = Atomic<Int>(0)
    let audioPeriod = Atomic<Int>(0)

    init() throws {
        video = try VideoSendPipeline(settings: VideoEncodeSettings(width: width, height: height, framesPerSecond: fps))
        audio = try AudioSendPipeline()
        bus = try MediaAudioBus()
        bus.add(audio)
        latencies.withLock { $0.reserveCapacity(200_000) }
    }

    /// Connects one more subscriber: a publisher/subscriber PeerConnection pair and receive pipelines.
    func addSubscriber() async throws {
        let publisher = try PeerConnection(configuration: PeerConfiguration(rtcpInterval: .seconds(1)))
        let subscriber = try PeerConnection(configuration: PeerConfiguration(audioSSRC: nil, videoSSRC: nil))
        _ = try InMemorySignaling.negotiate(publisher, subscriber)
        let deadline = ContinuousClock.now + .seconds(30)
        while !(publisher.state == .connected && subscriber.state == .connected) {
            guard ContinuousClock.now < deadline else { throw BenchError.notConnected }
            try await Task.sleep(for: .milliseconds(5))
        }
        let mapping = video.clockMapping
        let receiver = VideoReceivePipeline(peer: subscriber, renderer: nil)
        receiver.frameObserver = { [self] info in
            let captured = mapping.time(of: info.rtpTimestamp, near: info.renderedAt)
            let ms = Double((info.renderedAt - captured).nanoseconds) / 1e6
            let toReceive = Double((info.receivedAt - captured).nanoseconds) / 1e6
            latencies.withLock { l in if l.count < l.capacity { l.append((ms, toReceive)) } }
        }
        let audioReceiver = AudioReceivePipeline(peer: subscriber)
        bus.mixer.add(audioReceiver)
        receivers.withLock { $0.append(receiver) }
        audioReceivers.withLock { $0.append(audioReceiver) }
        peers.withLock { $0.append((publisher, subscriber)) }
        try video.attach(publisher)
        try audio.attach(publisher)
    }

    /// Starts the 30 fps "camera" and the 10 ms "sound card" (capture and playback) threads.
    func start() {
        capture.withLock {
            $0 = PeriodicThread(name: "bench-camera", interval: .nanoseconds(1_000_000_000 / Int64(fps))) { [self] in
                let n = frameNumber.add(1, ordering: .relaxed).newValue
                withSourceFrame(n, timestamp: MonotonicClock.now()) { video.consumeFrame($0) }
                return true
            }
        }
        // Owned by the audio thread alone; freed never (one buffer per benchmark direction).
        nonisolated(unsafe) let playback = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 480)
        audioClock.withLock {
            $0 = PeriodicThread(name: "bench-audio", interval: .milliseconds(10)) { [self] in
                let n = audioPeriod.add(1, ordering: .relaxed).newValue
                tonePeriods[n % 100].withUnsafeBufferPointer { bus.writeCaptureData($0) }
                bus.readRenderData(playback)
                return true
            }
        }
    }

    func stop() {
        capture.withLock { $0 }?.stop()
        audioClock.withLock { $0 }?.stop()
    }

    func close() {
        stop()
        video.close()
        audio.close()
        receivers.withLock { $0 }.forEach { $0.close() }
        audioReceivers.withLock { $0 }.forEach { $0.close() }
        peers.withLock { $0 }.forEach { $0.publisher.close(); $0.subscriber.close() }
    }

    var framesDecoded: Int { receivers.withLock { $0 }.map(\.statistics.framesDecoded).reduce(0, +) }
    var bytesSent: UInt64 {
        peers.withLock { $0 }.map { $0.publisher.statistics(.video).bytesSent + $0.publisher.statistics(.audio).bytesSent }
            .reduce(0, +)
    }
}

enum BenchError: Error { case notConnected }

/// What one run of ``measure(_:seconds:)`` saw.
struct CallRun {
    /// Process CPU, as a fraction of one core.
    var cpu: Double
    /// Decoded frames per second per receiver.
    var fps: Double
    /// Bytes sent per second, all publishers.
    var bytes: Double
    /// Capture-to-render latencies in ms, sorted.
    var latency: [Double]
    /// CPU fraction of one core per thread group.
    var threads: [(group: String, seconds: Double)]
    /// Context switches per second per thread group.
    var switches: [(group: String, perSecond: Double)]
    /// The machine's idle-state entries per second (system-wide).
    var idleEntries: Double
    /// The slowest 1 % of frames: mean ms before their last packet arrived (capture, encode, send, network,
    /// receive) and after it (decode queue, decode, render).
    var slowest: (before: Double, after: Double)
    /// The share of the machine's CPU time the hypervisor took (steal, system-wide), in %.
    var steal: Double
}

/// The machine's CPU time stolen by the hypervisor and its total CPU time so far, in clock ticks (the first line of
/// /proc/stat), or nil where it cannot be read.
func machineSteal() -> (steal: Int, total: Int)? {
    guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
          let line = text.split(separator: "\n").first, line.hasPrefix("cpu ")
    else { return nil }
    // user nice system idle iowait irq softirq steal [guest guest_nice: already counted in user and nice]
    let fields = line.split(separator: " ").dropFirst().compactMap { Int($0) }
    guard fields.count >= 8 else { return nil }
    return (fields[7], fields.prefix(8).reduce(0, +))
}

/// The share of the machine's CPU time stolen since `before`, in %.
func stealPercent(since before: (steal: Int, total: Int)?) -> Double {
    guard let before, let after = machineSteal(), after.total > before.total else { return .nan }
    return Double(after.steal - before.steal) * 100 / Double(after.total - before.total)
}

/// Runs `directions` for `seconds` after a 1 s warm-up and measures it.
func measure(_ directions: [Direction], seconds: Double) async throws -> CallRun {
    directions.forEach { $0.start() }
    try await Task.sleep(for: .seconds(1))
    directions.forEach { d in d.latencies.withLock { $0.removeAll(keepingCapacity: true) } }
    let frames0 = directions.map(\.framesDecoded), bytes0 = directions.map(\.bytesSent)
    let switches0 = ThreadCPU.switches(), idle0 = cpuIdleEntries(), steal0 = machineSteal()
    let threads0 = ThreadCPU.snapshot(), cpu0 = processCPU(), wall0 = MonotonicClock.now()
    try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
    let cpu = processCPU() - cpu0, wall = (MonotonicClock.now() - wall0).seconds
    let threads = ThreadCPU.difference(from: threads0, to: ThreadCPU.snapshot()).map { ($0.group, $0.value / wall) }
    let switches = ThreadCPU.difference(from: switches0, to: ThreadCPU.switches())
        .map { ($0.group, Double($0.value) / wall) }
    var idleEntries = Double.nan
    if let before = idle0, let after = cpuIdleEntries() { idleEntries = Double(after - before) / wall }
    let steal = stealPercent(since: steal0)
    let frames = zip(directions.map(\.framesDecoded), frames0).map { Double($0 - $1) }
    let bytes = zip(directions.map(\.bytesSent), bytes0).map { Double($0 - $1) }
    directions.forEach { $0.stop() }
    let samples = directions.flatMap { d in d.latencies.withLock { $0 } }
    let latency = samples.map(\.total).sorted()
    let p99 = percentile(latency, 0.99)
    let slow = samples.filter { $0.total >= p99 }
    let count = Double(slow.count)
    let slowest = slow.isEmpty ? (before: Double.nan, after: Double.nan)
        : (before: slow.map(\.toReceive).reduce(0, +) / count,
           after: slow.map { $0.total - $0.toReceive }.reduce(0, +) / count)
    let receivers = directions.map { $0.receivers.withLock { $0.count } }.reduce(0, +)
    return CallRun(cpu: cpu / wall, fps: frames.reduce(0, +) / wall / Double(max(receivers, 1)),
                   bytes: bytes.reduce(0, +) / wall, latency: latency, threads: threads, switches: switches,
                   idleEntries: idleEntries, slowest: slowest, steal: steal)
}

/// Runs Benchmarks/aiortc-call/aiortc_call.py for `seconds` and returns its "name value unit" figures, or nil (with a
/// line saying why) when python3 or aiortc is missing or the run fails.
func runAiortc(seconds: Double) -> [String: (value: Double, unit: String)]? {
    let frames = FileManager.default.temporaryDirectory.appendingPathComponent("call-bench-\(getpid()).i420").path
    do { try pictures.write(to: frames) } catch {
        print("# aiortc: not run (cannot write \(frames): \(error))")
        return nil
    }
    defer { try? FileManager.default.removeItem(atPath: frames) }
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../aiortc-call/aiortc_call.py").standardized.path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script, "--seconds", String(seconds), "--frames", frames,
                         "--frame-count", String(PictureSequence.count)]
    let output = Pipe()
    process.standardOutput = output
    let steal0 = machineSteal()
    do { try process.run() } catch {
        print("# aiortc: not run (\(error)); install it with scripts/bootstrap --bench")
        return nil
    }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        print("# aiortc: exit status \(process.terminationStatus); install it with scripts/bootstrap --bench")
        return nil
    }
    var figures: [String: (value: Double, unit: String)] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
        let fields = line.split(separator: " ")
        guard fields.count >= 2, let value = Double(fields[1]) else { continue }
        figures[String(fields[0])] = (value, fields.count > 2 ? String(fields[2]) : "")
    }
    // Over the whole process, start-up included (the call's figure covers its measured seconds only).
    figures["machine_steal"] = (stealPercent(since: steal0), "%")
    return figures
}

/// The call's context switches per second (every thread, voluntary and involuntary), one "thread_switches" line per
/// thread group, the machine's idle-state entries per second during the call (`idleEntries`, system-wide: each is a
/// CPU that went idle and was woken again), and with `costs` (nil: not measured) the CPU the switches account for,
/// counting as many of them as there were idle entries at the wake-from-idle price and the rest at the busy price.
func reportSwitches(_ switches: [(group: String, perSecond: Double)], idleEntries: Double, cpu: Double, costs: WakeCosts?) {
    let total = switches.map(\.perSecond).reduce(0, +)
    report("call_context_switches", total, "1/s")
    for (group, rate) in switches where rate >= 1 {
        print("thread_switches", group.replacingOccurrences(of: " ", with: "_"), String(format: "%.1f", rate), "1/s")
    }
    report("call_cpu_idle_entries", idleEntries, "1/s")
    guard let costs, !idleEntries.isNaN else { return }
    let switching = costs.cpu(switches: total, idleEntries: idleEntries)
    report("call_context_switch_cpu", switching * 100, "%core")
    report("call_context_switch_share", switching / cpu * 100, "%")
}

/// One "thread_cpu <group> <value> %core" line per thread group using at least 0.05 % of a core.
func reportThreads(_ threads: [(group: String, seconds: Double)], prefix: String = "") {
    for (group, share) in threads where share >= 0.0005 {
        let name = group.replacingOccurrences(of: " ", with: "_")
        print("\(prefix)thread_cpu", name, String(format: "%.2f", share * 100), "%core")
    }
}

// MARK: - Main

print("# content \(content.rawValue), \(PictureSequence.count)-frame loop, \(width)x\(height) I420 at \(fps) fps, 1 Mbps")

var baseline = Double.nan
if !callOnly {
    let stages = try measureBaseline(seconds: min(duration, 10))
    baseline = stages.total * 2  // both directions
    report("baseline_codec_cpu", baseline * 100, "%core")
    // Both directions, to set beside the call's thread groups: bench-camera, tk-venc-N, tk-vdec-N, bench-audio.
    for (stage, value) in [("copy", stages.copy), ("vp8_encode", stages.vp8Encode), ("vp8_decode", stages.vp8Decode),
                           ("opus", stages.opus)] {
        print("baseline_stage_cpu", stage, String(format: "%.2f", value * 2 * 100), "%core")
    }
}
let wakeCosts = callOnly ? nil : WakeCosts.measure(seconds: 2)
if let wakeCosts {
    report("wake_from_idle_cost", wakeCosts.fromIdle * 1e6, "us")
    report("wake_from_idle_idle_entries_per_tick", wakeCosts.idleEntriesPerTick, "")
    report("switch_busy_cpu_cost", wakeCosts.busy * 1e6, "us")
}

// Two-way call: A publishes to B, B publishes to A.
let forward = try Direction(), backward = try Direction()
try await forward.addSubscriber()
try await backward.addSubscriber()
let call = try await measure([forward, backward], seconds: duration)
report("call_cpu", call.cpu * 100, "%core")
if !callOnly { report("call_vs_codec_ratio", call.cpu / baseline, "x") }
report("call_fps_delivered", call.fps, "fps")
report("call_latency_p50", percentile(call.latency, 0.5), "ms")
report("call_latency_p99", percentile(call.latency, 0.99), "ms")
report("call_latency_slowest_1pct_to_last_packet", call.slowest.before, "ms")
report("call_latency_slowest_1pct_after_last_packet", call.slowest.after, "ms")
report("call_machine_steal", call.steal, "%")
report("call_bytes_per_second", call.bytes, "B/s")
reportThreads(call.threads)
// Context switches of the call (every thread, voluntary and involuntary) and, with the cost measured above, the share
// of the call's CPU they account for.
reportSwitches(call.switches, idleEntries: call.idleEntries, cpu: call.cpu, costs: wakeCosts)
// What the receivers lost on the way (whole call, warm-up included): frames dropped (a full queue or a lost packet
// skips to the next keyframe), keyframe requests (PLI) they sent, keyframes decoded.
let receiverStats = (forward.receivers.withLock { $0 } + backward.receivers.withLock { $0 }).map(\.statistics)
report("call_frames_received", Double(receiverStats.map(\.framesReceived).reduce(0, +)), "frames")
report("call_frames_dropped", Double(receiverStats.map(\.framesDropped).reduce(0, +)), "frames")
report("call_keyframe_requests", Double(receiverStats.map(\.keyframeRequests).reduce(0, +)), "PLI")
report("call_keyframes_decoded", Double(receiverStats.map(\.keyframesDecoded).reduce(0, +)), "frames")
// Wall-clock time in the codec per frame (whole call, warm-up included): against its CPU share, how much the
// threads waited for a CPU while inside libvpx.
let senderStats = [forward.video.statistics, backward.video.statistics]
let encodeTime = senderStats.map(\.totalEncodeTime).reduce(.zero, +)
let decodeTime = receiverStats.map(\.totalDecodeTime).reduce(.zero, +)
let framesEncoded = Double(senderStats.map(\.framesEncoded).reduce(0, +))  // 0 frames: nan, not a measurement
let framesDecoded = Double(receiverStats.map(\.framesDecoded).reduce(0, +))
report("call_encode_time_mean", encodeTime.seconds * 1000 / framesEncoded, "ms")
report("call_decode_time_mean", decodeTime.seconds * 1000 / framesDecoded, "ms")
// Send-side bandwidth estimation (transport-cc): the lowest estimate over the publishers at the end of the call
// (no loss on loopback: it should sit at its upper bound) and the lowest encoder target it left (the cap: 1 Mbps).
let publishers = (forward.peers.withLock { $0 } + backward.peers.withLock { $0 }).map(\.publisher)
let estimates = publishers.compactMap(\.bandwidthEstimate)
report("call_bandwidth_estimate_min", estimates.isEmpty ? .nan : Double(estimates.min()!) / 1000, "kbps")
report("call_encoder_target_min", Double(min(forward.video.statistics.targetBitrate,
                                             backward.video.statistics.targetBitrate)) / 1000, "kbps")
forward.close()
backward.close()
if callOnly { exit(0) }

// The same job with aiortc 1.16 (Benchmarks/aiortc-call, installed by `scripts/bootstrap --bench`), run right after
// in this benchmark run so both see the same machine; the ratios compare TokKit with it.
let aiortc = runAiortc(seconds: duration)
if let aiortc {
    for (name, figure) in aiortc.sorted(by: { $0.key < $1.key }) { report("aiortc_\(name)", figure.value, figure.unit) }
    if let cpu = aiortc["cpu"]?.value { report("call_cpu_vs_aiortc", call.cpu * 100 / cpu, "x") }
    if let p50 = aiortc["latency_p50"]?.value {
        report("call_latency_p50_vs_aiortc", percentile(call.latency, 0.5) / p50, "x")
    }
    if let p99 = aiortc["latency_p99"]?.value {
        report("call_latency_p99_vs_aiortc", percentile(call.latency, 0.99) / p99, "x")
    }
    if let bytes = aiortc["bytes_per_second"]?.value { report("call_bytes_vs_aiortc", call.bytes / bytes, "x") }
}

// More rounds: the call again, then aiortc again, alternating (the first round is the one above).
if let firstAiortc = aiortc?["cpu"]?.value, rounds > 1 {
    var ratios = [call.cpu * 100 / firstAiortc]
    var p50s = [percentile(call.latency, 0.5)], p99s = [percentile(call.latency, 0.99)]
    for round in 2...rounds {
        let f = try Direction(), b = try Direction()
        try await f.addSubscriber()
        try await b.addSubscriber()
        let again = try await measure([f, b], seconds: duration)
        f.close()
        b.close()
        guard let otherRun = runAiortc(seconds: duration), let other = otherRun["cpu"]?.value else { break }
        report("round_\(round)_call_cpu", again.cpu * 100, "%core")
        report("round_\(round)_aiortc_cpu", other, "%")
        if let steal = otherRun["machine_steal"]?.value { report("round_\(round)_aiortc_machine_steal", steal, "%") }
        report("round_\(round)_call_cpu_vs_aiortc", again.cpu * 100 / other, "x")
        report("round_\(round)_call_latency_p50", percentile(again.latency, 0.5), "ms")
        report("round_\(round)_call_latency_p99", percentile(again.latency, 0.99), "ms")
        report("round_\(round)_call_latency_slowest_1pct_to_last_packet", again.slowest.before, "ms")
        report("round_\(round)_call_latency_slowest_1pct_after_last_packet", again.slowest.after, "ms")
        report("round_\(round)_call_machine_steal", again.steal, "%")
        reportThreads(again.threads, prefix: "round_\(round)_")
        ratios.append(again.cpu * 100 / other)
        p50s.append(percentile(again.latency, 0.5))
        p99s.append(percentile(again.latency, 0.99))
    }
    func median(_ values: [Double]) -> Double {
        let v = values.sorted()
        return v.count % 2 == 1 ? v[v.count / 2] : (v[v.count / 2 - 1] + v[v.count / 2]) / 2
    }
    report("call_cpu_vs_aiortc_rounds", Double(ratios.count), "rounds")
    report("call_cpu_vs_aiortc_median", median(ratios), "x")
    report("call_cpu_vs_aiortc_lowest", ratios.min()!, "x")
    report("call_cpu_vs_aiortc_highest", ratios.max()!, "x")
    report("call_latency_p50_median", median(p50s), "ms")
    report("call_latency_p99_median", median(p99s), "ms")
    report("call_latency_p99_highest", p99s.max()!, "ms")
}

// One publisher, 1...3 subscribers.
let fan = try Direction()
var previous: Double?
// Half the call's length each: a subscriber adds ~5 % of a core, which five seconds measured too noisily (one
// step once came out negative).
let fanSeconds = max(duration / 2, 2)
for k in 1...3 {
    try await fan.addSubscriber()
    let run = try await measure([fan], seconds: fanSeconds)
    report("publisher_\(k)_subscribers_cpu", run.cpu * 100, "%core")
    if let previous { report("extra_subscriber_\(k)_cpu", (run.cpu - previous) * 100, "%core") }
    previous = run.cpu
}
let encoded = Double(fan.video.statistics.framesEncoded)
let decodedMax = Double(fan.receivers.withLock { $0 }.map(\.statistics.framesDecoded).max() ?? 0)
let firstSubscriberFrames = Double(fan.receivers.withLock { $0 }.first?.statistics.framesDecoded ?? 0)
report("encodes_per_published_frame", encoded / max(firstSubscriberFrames, decodedMax, 1), "x")
fan.close()
// A missing baseline is a failure, not a skip (the figures above are still printed).
if aiortc == nil {
    print("call-bench: the aiortc job did not run; the comparison is missing (scripts/bootstrap --bench installs it)")
    exit(1)
}
