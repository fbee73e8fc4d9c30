// network-bench: media over impaired links in the network lab, TokKit and Chromium in the same run, side by side.
//
//   swift build -c release && sudo .build/release/network-bench [--seconds 60] [--only loss|bottleneck|outage|join] [--join-log LEVEL]
//                                                                [--stacks TokKit,Chromium] [--report-interval 250]
//
// Every scenario builds a lab (Tests/TokKitNetworkLab): the session server on one host, two peers on two others,
// each publishing 640x480 at 30 fps and subscribing to the other; first two TokKit peers (tokkit-lab-peer), then
// two headless Chromium pages (the browser client). Figures are for the stream from host a to host b and back.
//   loss        5 % random loss each way on a's link, 100 ms round trip (25 ms each way on both links), ±10 ms
//               jitter on each: freeze ratio (WebRTC's definition), audio concealment, received bitrate, PSNR (TokKit:
//               the pattern's; Chromium's fake camera has no reference), NACKs. TokKit runs it twice: with
//               `textured` content (~1 Mb/s, many packets a frame, like Chromium's ~700 kb/s: the rows to compare) and
//               with its numbered `pattern` (a few kb/s, about a packet a frame: the PSNR row, little to lose).
//   bottleneck  500 kb/s each way on a's link (tc tbf): when a's send rate settles under it, and freezes after that
//               (both send more than the cap wants before it: TokKit PictureSequence's `textured`, about 1 Mb/s;
//               Chromium its fake camera, about 770 kb/s). --report-interval MS (50-500): how often both report and
//               the bench looks; the send rate is over 500 ms whatever it is.
//   outage      a's link down for 2 s: how long after it is back until b decodes a new frame of a.
//   join        connect to first decoded remote frame, direct and through TURN (TokKit).
//               --join-log LEVEL prints each join's peer logs at LEVEL (e.g. debug: negotiation steps).
// The goal (issue 14): TokKit at least as good as Chromium on every row; join ≤ 200 ms direct.
// Runs inside a private network namespace (re-executes itself under `unshare -n` when needed; root).
import Foundation
import Synchronization
import TokKitChromiumSupport
import TokKitNetworkLab

// MARK: - Setup

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}
NetworkLab.reexecuteInPrivateNamespaceIfNeeded(program: "network-bench")
let seconds = min(max(Int(option("--seconds") ?? "") ?? 60, 10), 600)
/// How often the bottleneck row's participants report, and the bench reads them (ms).
let reportInterval = min(max(Int(option("--report-interval") ?? "") ?? 250, 50), 500)
let only = option("--only")
let clock = ContinuousClock()

/// One participant's samples, whichever stack: what it receives from the other, and what it sends.
struct Sample {
    var t: Double  // seconds, the bench's clock
    var frames = 0, videoBytes = 0, freezeCount = 0
    var freezeSeconds = 0.0, framesSeconds = 0.0
    var audioConcealed = 0, audioTotal = 0, nacks = 0
    var psnr: Double?
    /// The report's own time (ms on the participant's clock, as the timeline's marks).
    var reportT: Double?
}

protocol Participant: Sendable {
    var label: String { get }
    /// The newest receive sample.
    func sample() -> Sample?
    /// The newest send rate figures: (bytes sent so far or encoder bits/s, target bits/s).
    func sendRate() -> (encoderBitrate: Double, target: Double)?
    func leave() async
}

let started = clock.now
func now() -> Double { Double((clock.now - started) / .milliseconds(1)) / 1_000 }

struct SwiftParticipant: Participant {
    let peer: LabPeer
    var label: String { "TokKit" }
    func sample() -> Sample? {
        guard let l = peer.lines.last(where: { $0.event == "stats" }) else { return nil }
        return Sample(t: now(), frames: l.frames ?? 0, videoBytes: l.videoBytes ?? 0, freezeCount: l.freezeCount ?? 0,
                      freezeSeconds: l.freezeSeconds ?? 0, framesSeconds: l.framesSeconds ?? 0,
                      audioConcealed: l.audioConcealed ?? 0, audioTotal: (l.audioDecoded ?? 0) + (l.audioRecovered ?? 0) + (l.audioConcealed ?? 0),
                      nacks: l.nacksSent ?? 0, psnr: l.psnr, reportT: l.t)
    }
    /// Over the last ``rateWindow``, from bytes sent, as for Chromium (the encoder's own figure is a whole second
    /// old).
    func sendRate() -> (encoderBitrate: Double, target: Double)? {
        windowedRate(peer.lines.filter { $0.event == "publisher" }.compactMap { l in
            l.t.map { ($0, Double(l.videoBytesSent ?? 0), Double(l.targetBitrate ?? 0)) }
        })
    }
    func leave() async {
        // Anything but the periodic lines is worth seeing (a restart, a failure) next to the figures.
        let events = peer.lines.map(\.event).filter { !["stats", "health", "publisher"].contains($0) }
        print("  TokKit \(peer.host.label) events: \(events.joined(separator: ", "))")
        let stats = peer.lines.filter { $0.event == "stats" }
        let delays = stats.compactMap(\.playoutDelayMs)
        if let last = stats.last, !delays.isEmpty {
            print(String(format: "  TokKit %@ playout delay %.0f–%.0f ms (mean %.0f), keyframe requests %d, frames dropped %d",
                         peer.host.label, delays.min()!, delays.max()!, delays.reduce(0, +) / Double(delays.count),
                         last.keyframeRequests ?? 0, last.framesDropped ?? 0))
        }
        if let last = stats.last {
            print("  TokKit \(peer.host.label) audio: decoded \(last.audioDecoded ?? 0), recovered \(last.audioRecovered ?? 0) (from RED \(last.audioRecoveredRED ?? 0)), concealed \(last.audioConcealed ?? 0), held for lip sync \(last.audioHeld ?? 0)")
        }
        // Lip sync: the video's lag behind the audio as measured from the sender reports, and the audio's extra delay;
        // what is left (lag − delay) over the second half of the run.
        let synced = stats.suffix(max(1, stats.count / 2)).filter { ($0.syncLagMs ?? -1_000) > -1_000 }
        if !synced.isEmpty {
            let left = synced.map { ($0.syncLagMs ?? 0) - ($0.syncDelayMs ?? 0) }
            print(String(format: "  TokKit %@ lip sync (second half): video lag %.0f–%.0f ms, audio delay %.0f–%.0f ms, audio ahead by %.0f–%.0f ms",
                         peer.host.label, synced.compactMap(\.syncLagMs).min()!, synced.compactMap(\.syncLagMs).max()!,
                         synced.compactMap(\.syncDelayMs).min()!, synced.compactMap(\.syncDelayMs).max()!,
                         left.min()!, left.max()!))
        }
        if let sent = peer.lines.last(where: { $0.event == "publisher" }) {
            print("  TokKit \(peer.host.label) sent: frames encoded \(sent.framesEncoded ?? 0), skipped for the send queue "
                  + "\(sent.framesSkipped ?? 0); key frames for requests \(sent.keyframeRequests ?? 0), "
                  + "for refused repairs \(sent.declinedRepairKeyframes ?? 0)")
        }
        // When freezes and keyframe requests happened (seconds since the peer started), to tell them apart.
        var previous: LabPeer.Line?
        var marks: [String] = []
        for line in stats {
            if let p = previous, let t = line.t {
                if (line.freezeCount ?? 0) > (p.freezeCount ?? 0) { marks.append(String(format: "freeze@%.2f", t / 1_000)) }
                if (line.keyframeRequests ?? 0) > (p.keyframeRequests ?? 0) {
                    marks.append(String(format: "pli@%.1f", t / 1_000))
                }
            }
            previous = line
        }
        // When the encoded size changed (a slow path: smaller; publisher lines, same clock).
        var size: [Int]?
        for line in peer.lines where line.event == "publisher" {
            guard let w = line.encodedWidth, let h = line.encodedHeight, w > 0, [w, h] != size, let t = line.t else { continue }
            if size != nil { marks.append(String(format: "%dx%d@%.1f", w, h, t / 1_000)) }
            size = [w, h]
        }
        if !marks.isEmpty { print("  TokKit \(peer.host.label) timeline: \(marks.joined(separator: " "))") }
        let notices = peer.process.stderrTail.split(separator: "\n").filter { $0.contains("notice") || $0.contains("warning") }
        if !notices.isEmpty { print("  TokKit \(peer.host.label) log:\n    " + notices.suffix(8).joined(separator: "\n    ")) }
        _ = await peer.leave()
    }
}

final class BrowserParticipant: Participant, @unchecked Sendable {
    let browser: Chromium
    let recorder: ConsoleRecorder
    init(browser: Chromium, recorder: ConsoleRecorder) {
        self.browser = browser
        self.recorder = recorder
    }
    var label: String { "Chromium" }
    func sample() -> Sample? {
        guard let l = LabPage.reports(recorder).last(where: { $0.event == "stats" }) else { return nil }
        return Sample(t: now(), frames: l.frames ?? 0, videoBytes: l.videoBytes ?? 0, freezeCount: l.freezeCount ?? 0,
                      freezeSeconds: l.freezeSeconds ?? 0, framesSeconds: l.framesSeconds ?? 0,
                      audioConcealed: l.audioConcealed ?? 0, audioTotal: l.audioSamples ?? 0, nacks: l.nacksSent ?? 0,
                      reportT: l.t)
    }
    func sendRate() -> (encoderBitrate: Double, target: Double)? {
        windowedRate(LabPage.reports(recorder).filter { $0.event == "publisher" }.compactMap { l in
            l.t.map { ($0, Double(l.videoBytesSent ?? 0), Double(l.targetBitrate ?? 0)) }
        })
    }
    func leave() async { await browser.close() }
}

/// The span a send rate is measured over (ms): two report intervals of 250 ms, whatever the interval.
let rateWindow = 500.0

/// The send rate over the last ``rateWindow`` from a participant's reports (t in ms, bytes sent so far, target
/// bits/s), in the order written: from the newest report back to the newest one at least the window older.
func windowedRate(_ sends: [(t: Double, bytes: Double, target: Double)]) -> (encoderBitrate: Double, target: Double)? {
    guard let last = sends.last, let earlier = sends.last(where: { $0.t <= last.t - rateWindow }),
          last.t > earlier.t else { return nil }
    return ((last.bytes - earlier.bytes) * 8 / ((last.t - earlier.t) / 1_000), last.target)
}

/// Starts the two participants of `stack` on hosts a and b.
func join(_ stack: String, lab: NetworkLab, server: LabSessionServer, a: LabHost, b: LabHost, content: String,
          interval: Int) async throws -> (any Participant, any Participant) {
    if stack == "TokKit" {
        let options = ["--width", "640", "--height", "480", "--fps", "30", "--content", content, "--log-level", "notice",
                       "--stats-interval", String(interval), "--seconds", String(seconds + 120)]
        let pa = try await LabPeer.join(lab, on: a, server: server, name: "a", options: options)
        let pb = try await LabPeer.join(lab, on: b, server: server, name: "b", options: options)
        _ = try await pa.waitForMedia(frames: 30, pattern: content == "pattern", timeout: .seconds(60))
        _ = try await pb.waitForMedia(frames: 30, pattern: content == "pattern", timeout: .seconds(60))
        return (SwiftParticipant(peer: pa), SwiftParticipant(peer: pb))
    }
    var participants: [BrowserParticipant] = []
    for host in [a, b] {
        let browser = try await LabBrowser.launch(in: lab, on: host, secureOrigins: [server.url])
        let c = try await server.credentials()
        var query = URLComponents()
        query.queryItems = [URLQueryItem(name: "apiKey", value: c.apiKey), URLQueryItem(name: "sessionId", value: c.sessionID),
                            URLQueryItem(name: "token", value: c.token), URLQueryItem(name: "interval", value: String(interval))]
        let page = try await browser.newPage()
        let recorder = ConsoleRecorder(page)
        try await page.navigate(to: "\(server.url)/\(LabPage.name)\(query.string ?? "")")
        participants.append(BrowserParticipant(browser: browser, recorder: recorder))
    }
    for p in participants { _ = try await LabPage.waitForMedia(p.recorder, frames: 30, timeout: .seconds(60)) }
    return (participants[0], participants[1])
}

/// A lab with the server and two delayable peers' hosts.
func withLab(_ body: (NetworkLab, LabSessionServer, LabHost, LabHost) async throws -> Void) async throws {
    try await NetworkLab.run { lab in
        let serverHost = try await lab.addHost("server")
        let a = try await lab.addHost("a", delayable: true), b = try await lab.addHost("b", delayable: true)
        let server = try await LabSessionServer.start(lab, on: serverHost, staticDirectory: try LabPage.directory())
        try await body(lab, server, a, b)
    }
}

func pct(_ x: Double) -> String { String(format: "%.2f %%", x * 100) }
func kbps(_ x: Double) -> String { String(format: "%.0f kb/s", x / 1_000) }
/// The result table: (row, TokKit, Chromium).
let table = Mutex<[(String, String, String)]>([])
func record(_ row: String, _ stack: String, _ value: String) {
    print("  \(stack): \(row): \(value)")
    table.withLock { rows in
        if let i = rows.firstIndex(where: { $0.0 == row }) {
            if stack == "TokKit" { rows[i].1 = value } else { rows[i].2 = value }
        } else {
            rows.append(stack == "TokKit" ? (row, value, "") : (row, "", value))
        }
    }
}

// MARK: - Scenarios

/// `content`: what TokKit sends (Chromium always sends the page's pattern, ~700 kb/s); rows for other content than
/// `textured` (TokKit's at a rate like Chromium's) are labelled with it.
func loss(_ stack: String, content: String = "textured") async throws {
    let tag = stack == "TokKit" && content != "textured" ? " [\(content)]" : ""
    try await withLab { lab, server, a, b in
        for host in [a, b] { try await lab.setDelay(host, .milliseconds(25), jitter: .milliseconds(10)) }
        try await lab.impair(a, Impairments(dropPercent: 5))
        let (pa, pb) = try await join(stack, lab: lab, server: server, a: a, b: b, content: content, interval: 500)
        try await Task.sleep(for: .seconds(5))
        let start = [pa.sample(), pb.sample()]
        try await Task.sleep(for: .seconds(seconds))
        let end = [pa.sample(), pb.sample()]
        for (i, label) in ["b→a", "a→b"].enumerated() {
            guard let s0 = start[i], let s1 = end[i] else { continue }
            let frozen = (s1.freezeSeconds - s0.freezeSeconds) / max(s1.framesSeconds - s0.framesSeconds, 0.001)
            let concealed = Double(s1.audioConcealed - s0.audioConcealed) / Double(max(s1.audioTotal - s0.audioTotal, 1))
            let bitrate = Double(s1.videoBytes - s0.videoBytes) * 8 / (s1.t - s0.t)
            record("loss \(label)\(tag): freeze ratio (goal < 2 %)", stack, pct(frozen) + " (\(s1.freezeCount - s0.freezeCount) freezes)")
            record("loss \(label)\(tag): audio concealed (goal < 5 %)", stack, pct(concealed))
            record("loss \(label)\(tag): received video bitrate", stack, kbps(bitrate))
            record("loss \(label)\(tag): frames decoded per second", stack,
                   String(format: "%.1f", Double(s1.frames - s0.frames) / (s1.t - s0.t)))
            record("loss \(label)\(tag): NACKs sent", stack, "\(s1.nacks - s0.nacks)")
            if content == "pattern" {  // only the numbered pattern has a reference to compare with
                record("loss \(label)\(tag): PSNR of received frames", stack,
                       s1.psnr.map { String(format: "%.1f dB", $0) } ?? "n/a")
            }
        }
        await pa.leave()
        await pb.leave()
    }
}

func bottleneck(_ stack: String) async throws {
    try await withLab { lab, server, a, b in
        // With reports every 250 ms a freeze that ended before the rate went under the cap can be reported only
        // after it, and count as after settling; `--report-interval 50` tells the two apart to 50 ms, but Chromium's
        // getStats that often costs it (one run: 5.9 frames a second after settling, 97 kb/s).
        let (pa, pb) = try await join(stack, lab: lab, server: server, a: a, b: b,
                                      content: stack == "TokKit" ? "textured" : "pattern", interval: reportInterval)
        try await Task.sleep(for: .seconds(3))
        let capped = now()
        let beforeCap = pb.sample()
        try await lab.impair(a, Impairments(bandwidthKbit: 500))
        var settledAt: Double?
        var atSettle: Sample?
        var series: [(Double, Double)] = []
        var targets: [Double] = []
        let end = capped + Double(seconds)
        while now() < end {
            try await Task.sleep(for: .milliseconds(reportInterval))
            guard let rate = pa.sendRate(), rate.encoderBitrate > 0 else { continue }
            series.append((now(), rate.encoderBitrate))
            targets.append(rate.target)
            if rate.encoderBitrate < 500_000 {
                if settledAt == nil { (settledAt, atSettle) = (now(), pb.sample()) }
            } else {
                (settledAt, atSettle) = (nil, nil)  // over the cap again: not settled
            }
        }
        // On b's clock, to read against its timeline's freezes.
        let onB = { (sample: Sample?) in sample?.reportT.map { String(format: "%.2f s", $0 / 1_000) } ?? "never" }
        print("  \(stack) b's clock: the cap at \(onB(beforeCap)), settled at \(onB(atSettle))")
        record("500 kb/s: a's send rate under the cap for good after (goal ≤ 5 s)", stack,
               settledAt.map { String(format: "%.1f s", $0 - capped) } ?? "never")
        // The first 8 s after the cap, every 0.5 s: send rate / target (kb/s), to see how the transition went.
        let transition = zip(series, targets).filter { $0.0.0 < capped + 8 }.enumerated()
            .filter { $0.offset % max(500 / reportInterval, 1) == 0 }
            .map { String(format: "%.1f:%.0f/%.0f", $0.element.0.0 - capped, $0.element.0.1 / 1_000, $0.element.1 / 1_000) }
        print("  \(stack) a after the cap (s:sent/target kb/s): \(transition.joined(separator: " "))")
        // The rest of the run every 5 s, to see whether the target stays near the cap or dips later.
        let minute = zip(series, targets).filter { $0.0.0 >= capped + 8 }.enumerated()
            .filter { $0.offset % max(5_000 / reportInterval, 1) == 0 }
            .map { String(format: "%.0f:%.0f/%.0f", $0.element.0.0 - capped, $0.element.0.1 / 1_000, $0.element.1 / 1_000) }
        print("  \(stack) a later (s:sent/target kb/s): \(minute.joined(separator: " "))")
        let tail = series.filter { $0.0 > end - 10 }.map(\.1)
        record("500 kb/s: a's send rate, last 10 s", stack, kbps(tail.reduce(0, +) / Double(max(tail.count, 1))))
        if let s0 = beforeCap, let s1 = pb.sample() {  // the transition too: what settling earlier or later hides
            record("500 kb/s: freezes at b from the cap on", stack,
                   "\(s1.freezeCount - s0.freezeCount) (\(String(format: "%.2f", s1.freezeSeconds - s0.freezeSeconds)) s)")
        }
        if let s0 = atSettle, let s1 = pb.sample() {
            record("500 kb/s: freezes at b after settling (goal 0)", stack,
                   "\(s1.freezeCount - s0.freezeCount) (\(String(format: "%.2f", s1.freezeSeconds - s0.freezeSeconds)) s)")
            record("500 kb/s: frames decoded per second at b after settling", stack,
                   String(format: "%.1f", Double(s1.frames - s0.frames) / max(s1.t - s0.t, 0.001)))
        }
        await pa.leave()
        await pb.leave()
    }
}

func outage(_ stack: String) async throws {
    try await withLab { lab, server, a, b in
        let (pa, pb) = try await join(stack, lab: lab, server: server, a: a, b: b, content: "pattern", interval: 50)
        try await Task.sleep(for: .seconds(5))
        try await lab.impair(a, Impairments(offline: true))
        try await Task.sleep(for: .seconds(2))
        let before = pb.sample()?.frames ?? 0
        try await lab.impair(a, Impairments())
        let back = now()
        var recovered: Double?
        while now() < back + 30 {
            if let s = pb.sample(), s.frames > before { recovered = s.t - back; break }
            try await Task.sleep(for: .milliseconds(20))
        }
        record("2 s outage: b decodes a's video again after (goal ≤ 1 s)", stack,
               recovered.map { String(format: "%.2f s", $0) } ?? "not within 30 s")
        await pa.leave()
        await pb.leave()
    }
}

func joinTime() async throws {
    for relay in [false, true] {
        var times: [Double] = []
        for _ in 0..<3 { try await NetworkLab.run { lab in
            let serverHost = try await lab.addHost("server"), turnHost = try await lab.addHost("turn")
            let a = try await lab.addHost("a"), b = try await lab.addHost("b")
            let turn = try await TURNServer.start(in: lab, on: turnHost)
            let server = try await LabSessionServer.start(lab, on: serverHost, stun: [turn.stunURL],
                                                          turn: [turn.udpURL], turnSecret: turn.secret)
            let options = ["--stats-interval", "10"] + (relay ? ["--relay"] : [])
                + (option("--join-log").map { ["--log-level", $0] } ?? [])
            let pa = try await LabPeer.join(lab, on: a, server: server, name: "a", options: options + ["--no-subscribe"])
            _ = try await pa.process.waitForLine(timeout: .seconds(20), "a published") { $0.contains("\"published\"") }
            let pb = try await LabPeer.join(lab, on: b, server: server, name: "b", options: options)
            _ = try await pb.waitForMedia(frames: 1, pattern: false, timeout: .seconds(30))
            let connected = pb.lines.first { $0.event == "connected" }?.t ?? 0
            let subscribing = pb.lines.first { $0.event == "subscribing" }?.t ?? 0
            let media = pb.lines.first { $0.event == "subscriberConnected" }?.t ?? 0
            let first = pb.lines.first { $0.event == "stats" && ($0.frames ?? 0) > 0 }?.t ?? 0
            times.append(first - connected)
            print(String(format: "  TokKit join%@: connected %.0f ms after start, subscribing +%.0f, media connected "
                         + "+%.0f, first frame +%.0f ms", relay ? " (TURN)" : "", connected, subscribing - connected,
                         media - subscribing, first - media))
            if option("--join-log") != nil {
                // The peers' logs, and what else they printed on stdout (libnice's debug log, when enabled).
                for (name, peer) in [("a", pa), ("b", pb)] {
                    print("\(name):\n" + peer.process.stderrTail + "\n"
                          + peer.process.lines.filter { !$0.hasPrefix("{") }.joined(separator: "\n"))
                }
            }
            _ = await pa.leave()
            _ = await pb.leave()
        } }
        record("connect to first decoded frame, \(relay ? "through TURN" : "direct"), median of 3 (goal ≤ 200 ms direct)",
               "TokKit", String(format: "%.0f ms (%@)", times.sorted()[1],
                                times.map { String(format: "%.0f", $0) }.joined(separator: ", ")))
    }
}

// MARK: - Run

print("network-bench: \(seconds) s per scenario, 640x480 at 30 fps both ways")
do {
    for stack in (option("--stacks") ?? "TokKit,Chromium").split(separator: ",").map(String.init) {
        if only == nil || only == "loss" {
            try await loss(stack)
            // TokKit's numbered pattern (PSNR against the source; a few packets a second, so little to lose).
            if stack == "TokKit" { try await loss(stack, content: "pattern") }
        }
        if only == nil || only == "bottleneck" { try await bottleneck(stack) }
        if only == nil || only == "outage" { try await outage(stack) }
    }
    if only == nil || only == "join" { try await joinTime() }
} catch {
    print("network-bench: failed: \(error)")
}
let rows = table.withLock { $0 }
let width = max(rows.map(\.0.count).max() ?? 0, 10)
let tokKitWidth = max(rows.map(\.1.count).max() ?? 0, 19)
print("\n" + "scenario".padding(toLength: width, withPad: " ", startingAt: 0) + " | "
      + "TokKit".padding(toLength: tokKitWidth, withPad: " ", startingAt: 0) + " | Chromium")
for (row, t, c) in rows {
    print(row.padding(toLength: width, withPad: " ", startingAt: 0) + " | "
          + t.padding(toLength: tokKitWidth, withPad: " ", startingAt: 0) + " | " + c)
}
