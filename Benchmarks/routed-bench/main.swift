// routed-bench: one publisher and 1, 2, 4, 8, 16 subscribers, relayed (peer to peer) against routed (through Janus),
// in the same run (issue 15's benchmark).
//
//   swift build -c release --product routed-bench && .build/release/routed-bench [--subscribers 1,2,4,8,16]
//                                                                               [--seconds 10] [--fps 15]
//
// The network lab (Tests/TokKitNetworkLab): Janus 1.1.2 on a lab host of its own, the session server and the
// publisher in this process on the lab's test address, each subscriber a child process (`routed-bench
// --subscriber …`) on a lab host of its own. The publisher sends RecordingTestMedia's numbered pattern, 320x240 at
// --fps (routed: in simulcast layers, Janus forwarding the top one), and a tone; each subscriber reads the number back
// from every frame it renders, and the capture time of that frame gives its capture-to-render latency (the processes
// share CLOCK_MONOTONIC). For each subscriber count, a relayed round then a routed one, each measured over a window of
// --seconds after every subscriber rendered and 3 s of settling:
//   pub CPU %        this process (the publisher; the in-process server only signals), % of one core
//   upload kb/s      the publisher's audio + video bytes sent, over its peer connections
//   Janus CPU %      Janus's process, and per forwarded stream (routed: divided by the subscribers)
//   p50/p99 ms       capture-to-render latency of every frame rendered by any subscriber in the window
//   join p50/max ms  per subscriber, from just before connecting to its first rendered frame
//   rendered %       frames rendered over frames captured, over the subscribers
// then the routed − relayed p50 against the goal (≤ 5 ms on the lab's links): "goal met" or "not met" (figures, no
// assertion). The default run takes about 150 s. Runs in a private network namespace (re-executes itself under
// `unshare -n` when needed; root); the lab, Janus and every child process are gone when it exits.
import Foundation
import TokKit
import TokKitAudio
import TokKitNetworkLab

let arguments = CommandLine.arguments
if arguments.count > 1, arguments[1] == "--subscriber" {
    await SubscriberChild.run(Array(arguments.dropFirst(2)))
}
func option(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}
NetworkLab.reexecuteInPrivateNamespaceIfNeeded(program: "routed-bench")

var options = RoutedBench.Options()
if let list = option("--subscribers") {
    let counts = list.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) ?? 0 }
    guard !counts.isEmpty, counts.allSatisfy({ (1...32).contains($0) }) else {
        print("routed-bench: --subscribers takes a comma-separated list of counts in 1...32, e.g. 1,2,4")
        exit(2)
    }
    options.subscribers = counts
}
if let text = option("--seconds") {
    guard let seconds = Int(text), (2...600).contains(seconds) else {
        print("routed-bench: --seconds takes 2...600")
        exit(2)
    }
    options.seconds = seconds
}
if let text = option("--fps") {
    guard let fps = Double(text), (1...60).contains(fps) else {
        print("routed-bench: --fps takes 1...60")
        exit(2)
    }
    options.framesPerSecond = fps
}

do {
    try AudioDeviceManager.setAudioDevice(ToneAudioDevice())
    let started = ContinuousClock.now
    print("""
        routed-bench: one publisher (\(options.width)x\(options.height) at \(options.framesPerSecond) fps + tone), \
        subscribers \(options.subscribers.map(String.init).joined(separator: ",")), relayed then routed, \
        \(options.seconds) s windows; load average \(ProcessCPU.loadAverage())
        """)
    let results = try await RoutedBench(options: options).run()
    print("")
    ResultTable.print(results)
    print("took \(Int((ContinuousClock.now - started) / .seconds(1))) s; load average \(ProcessCPU.loadAverage())")
} catch {
    print("routed-bench failed: \(error)")
    exit(1)
}
