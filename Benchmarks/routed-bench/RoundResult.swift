import Foundation
import TokKitProtocol

/// What one round (one media mode, N subscribers) measured over its window.
struct RoundResult: Sendable {
    var mode: MediaMode
    var subscribers: Int
    /// This process's CPU (the publisher, and the in-process session server, which only signals) in % of one core.
    var publisherCPU: Double
    /// The publisher's upload (audio + video bytes sent, every peer connection) in kb/s.
    var uploadKbps: Double
    /// Janus's CPU in % of one core.
    var janusCPU: Double
    /// Capture-to-render latency of every frame any subscriber rendered in the window, ms, sorted.
    var latencies: [Double]
    /// Per subscriber that rendered: from just before connecting to its first rendered frame, ms, sorted.
    var joins: [Double]
    /// Subscribers that rendered nothing within the join timeout.
    var silent: Int
    /// Frames rendered over frames captured in the window, summed over the subscribers (1 = every subscriber
    /// rendered every frame).
    var renderedRatio: Double

    /// The nearest-rank percentile `p` (0...1) of sorted `values`; nil if empty.
    static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let rank = Int((p * Double(values.count)).rounded(.up)) - 1
        return values[min(max(rank, 0), values.count - 1)]
    }

    var p50: Double? { Self.percentile(latencies, 0.5) }
    var p99: Double? { Self.percentile(latencies, 0.99) }
}

/// The table the benchmark prints.
enum ResultTable {
    static let goalMs = 5.0

    /// Prints a header (with `header`) and a row per result, then (with `goal`) the routed − relayed p50 per
    /// subscriber count.
    static func print(_ results: [RoundResult], header: Bool = true, goal: Bool = true) {
        func f(_ value: Double?, _ decimals: Int = 1) -> String {
            value.map { String(format: "%.\(decimals)f", $0) } ?? "n/a"
        }
        func pad(_ s: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - s.count)) + s }
        let titles = ["subs", "mode", "pub CPU %", "upload kb/s", "Janus CPU %", "Janus %/stream", "p50 ms", "p99 ms",
                      "join p50 ms", "join max ms", "rendered %", "frames"]
        let widths = [4, 8, 10, 12, 12, 15, 8, 8, 12, 12, 11, 7]
        if header { Swift.print(zip(titles, widths).map { pad($0, $1) }.joined(separator: " ")) }
        for r in results {
            let routed = r.mode == .routed
            let row = ["\(r.subscribers)", r.mode.rawValue, f(r.publisherCPU), f(r.uploadKbps, 0),
                       f(r.janusCPU), routed ? f(r.janusCPU / Double(max(r.subscribers, 1)), 2) : "-",
                       f(r.p50), f(r.p99),
                       f(RoundResult.percentile(r.joins, 0.5), 0), f(r.joins.last, 0) + (r.silent > 0 ? " (\(r.silent) none)" : ""),
                       f(100 * r.renderedRatio), "\(r.latencies.count)"]
            Swift.print(zip(row, widths).map { pad($0, $1) }.joined(separator: " "))
        }
        guard goal else { return }
        Swift.print("")
        let counts = results.reduce(into: [Int]()) { if !$0.contains($1.subscribers) { $0.append($1.subscribers) } }
        for n in counts {
            let relayed = results.first { $0.subscribers == n && $0.mode == .relayed }
            let routed = results.first { $0.subscribers == n && $0.mode == .routed }
            guard let a = relayed?.p50, let b = routed?.p50 else {
                Swift.print("\(n) subscriber(s): routed − relayed p50 n/a (a round rendered nothing)")
                continue
            }
            let d = b - a
            Swift.print(String(format: "%d subscriber(s): routed − relayed p50 %+.1f ms (goal ≤ %.0f ms): ", n, d, goalMs)
                        + (d <= goalMs ? "goal met" : "not met"))
        }
    }
}
