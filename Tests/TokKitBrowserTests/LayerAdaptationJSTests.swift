import Foundation
import Testing
import TokKitChromiumSupport

@testable import TokKit
@testable import TokKitServer
import TokKitTesting

/// tokkit.js's `LayerAdaptation` (the browser subscriber's downlink layer adaptation) in headless Chromium, fed the
/// same inputs as TokKit's ``SubscriberLayerAdaptation``: every trace (hand-made scenarios and seeded random links
/// whose loss depends on the layer they carry) must give the same actions, layers, ceilings and holds in both, so the
/// browser follows the Swift client's rules and thresholds (Docs/Routing.md, "Simulcast: the downlink lowers the
/// layer"). A few scenarios are also checked against their expected figures directly. Nothing runs by itself: times
/// are given with each sample.
@Suite(.timeLimit(.minutes(2))) struct BrowserLayerAdaptationTests {
    /// One input to both machines.
    enum Step {
        case preference(layers: Int, cap: Int)
        case sample(received: Int, lost: Int, decoded: Int?, ms: Int)
        case stop

        var json: String {
            switch self {
            case let .preference(layers, cap): #"{"op":"pref","layers":\#(layers),"cap":\#(cap)}"#
            case let .sample(received, lost, decoded, ms):
                #"{"op":"sample","received":\#(received),"lost":\#(lost),"decoded":\#(decoded.map(String.init) ?? "null"),"ms":\#(ms)}"#
            case .stop: #"{"op":"stop"}"#
            }
        }
    }

    /// What a machine says after one step: the action (-2: none, -1: limit lifted, else the ceiling's layer), and its
    /// layer, ceiling (-1: none) and hold (ms) then.
    struct Outcome: Decodable, Equatable, CustomStringConvertible {
        var action: Int
        var layer: Int
        var ceiling: Int
        var hold: Int
        var description: String { "\(action)/\(layer)/\(ceiling)/\(hold)" }
    }

    /// Runs `steps` through ``SubscriberLayerAdaptation``.
    static func swiftOutcomes(_ steps: [Step]) -> [Outcome] {
        var machine = SubscriberLayerAdaptation()
        let start = ContinuousClock.now
        return steps.map { step in
            let action: SubscriberLayerAdaptation.Action?
            switch step {
            case let .preference(layers, cap): action = machine.preference(layers: layers, cap: cap)
            case let .sample(received, lost, decoded, ms):
                action = machine.sample(received: UInt64(received), lost: Int64(lost), decoded: decoded,
                                        at: start + .milliseconds(ms))
            case .stop:
                machine.stop()
                action = nil
            }
            let code = switch action {
            case nil: -2
            case .limit(nil)?: -1
            case .limit(let k?)?: k
            }
            return Outcome(action: code, layer: machine.layer, ceiling: machine.ceiling ?? -1,
                           hold: Int((machine.hold / .milliseconds(1)).rounded()))
        }
    }

    /// The page's script: imports tokkit.js and runs `steps` through a `LayerAdaptation`.
    static func script(_ steps: [Step]) -> String {
        """
        (async () => {
          const { LayerAdaptation } = await import("/tokkit.js");
          const machine = new LayerAdaptation();
          const steps = [\(steps.map { $0.json }.joined(separator: ","))];
          const out = [];
          for (const s of steps) {
            let a = null;
            if (s.op === "pref") a = machine.preference(s.layers, s.cap);
            else if (s.op === "sample") a = machine.sample({ received: s.received, lost: s.lost, decoded: s.decoded }, s.ms);
            else machine.stop();
            out.push({ action: a === null ? -2 : (a.limit === null ? -1 : a.limit), layer: machine.layer,
                       ceiling: machine.ceiling ?? -1, hold: machine.hold });
          }
          return JSON.stringify(out);
        })()
        """
    }

    static func jsOutcomes(_ page: BrowserPage, _ steps: [Step]) async throws -> [Outcome] {
        let text = try await page.page.evaluate(script(steps), timeout: .seconds(20))
        return try JSONDecoder().decode([Outcome].self, from: Data(text.utf8))
    }

    /// A link: one sample a second; `loss(layer, second)` is the share lost (0...100 %) of `perSecond` packets.
    static func trace(seconds: Int, layers: Int = 3, cap: Int = 2, perSecond: Int = 100,
                      machine: inout SubscriberLayerAdaptation, start: ContinuousClock.Instant,
                      loss: (_ layer: Int, _ second: Int) -> Int) -> [Step] {
        var steps: [Step] = [.preference(layers: layers, cap: cap)]
        _ = machine.preference(layers: layers, cap: cap)
        var received = 0, lost = 0
        for second in 0...seconds {
            let missed = second == 0 ? 0 : perSecond * loss(machine.layer, second) / 100
            received += perSecond - missed
            lost += missed
            steps.append(.sample(received: received, lost: lost, decoded: nil, ms: second * 1000))
            _ = machine.sample(received: UInt64(received), lost: Int64(lost), at: start + .seconds(second))
        }
        return steps
    }

    /// Random traces: the link carries up to a layer that changes now and then; above it the loss is 10-40 %, at or
    /// below 0-3 %; sometimes few packets, a stalled decoder, a preference change, new counters; samples 0.7-1.3 s
    /// apart.
    static func randomSteps(seed: UInt64, count: Int) -> [Step] {
        var random = SeededGenerator(seed: seed)
        var machine = SubscriberLayerAdaptation()
        let start = ContinuousClock.now
        var steps: [Step] = []
        func apply(_ step: Step) {
            steps.append(step)
            switch step {
            case let .preference(layers, cap): _ = machine.preference(layers: layers, cap: cap)
            case let .sample(received, lost, decoded, ms):
                _ = machine.sample(received: UInt64(received), lost: Int64(lost), decoded: decoded,
                                   at: start + .milliseconds(ms))
            case .stop: machine.stop()
            }
        }
        apply(.preference(layers: 3, cap: 2))
        var received = 0, lost = 0, decoded = 0, ms = 0
        var carried = 2
        for _ in 0..<count {
            ms += Int.random(in: 700...1300, using: &random)
            if Int.random(in: 0..<40, using: &random) == 0 { carried = Int.random(in: 0...2, using: &random) }
            if Int.random(in: 0..<60, using: &random) == 0 {
                let layers = Int.random(in: 1...3, using: &random)
                apply(.preference(layers: layers, cap: Int.random(in: 0..<layers, using: &random)))
            }
            if Int.random(in: 0..<80, using: &random) == 0 { (received, lost, decoded) = (0, 0, 0) }
            let perSecond = Int.random(in: 0..<10, using: &random) == 0 ? Int.random(in: 0...20, using: &random)
                : Int.random(in: 60...140, using: &random)
            // Around the thresholds too: 2 % (clean) and 8 % (lowers) of the expected packets.
            let lossPercent = machine.layer > carried ? Int.random(in: 6...40, using: &random)
                : Int.random(in: 0...4, using: &random)
            let missed = (perSecond * lossPercent + Int.random(in: 0..<100, using: &random)) / 100
            received += perSecond - missed
            lost += missed
            if Int.random(in: 0..<15, using: &random) != 0 { decoded += Int.random(in: 5...15, using: &random) }
            apply(.sample(received: received, lost: lost, decoded: decoded, ms: ms))
        }
        return steps
    }

    @Test func theBrowsersMachineDecidesAsTheSwiftClientsOnTheSameInputs() async throws {
        var traces: [(name: String, steps: [Step])] = []
        let start = ContinuousClock.now
        // A link that carries layer 1 only, for 400 s: failed probes double the hold up to 60 s.
        var m1 = SubscriberLayerAdaptation()
        traces.append(("carries layer 1", Self.trace(seconds: 400, machine: &m1, start: start) { layer, _ in
            layer == 2 ? 40 : 0
        }))
        // Lossy for 20 s, then clean: down to 0, probed back to the top.
        var m2 = SubscriberLayerAdaptation()
        traces.append(("lossy then clean", Self.trace(seconds: 80, machine: &m2, start: start) { _, second in
            second <= 20 ? 30 : 0
        }))
        // 5 % (under the 8 %) and too few packets change nothing.
        var m3 = SubscriberLayerAdaptation()
        traces.append(("small loss", Self.trace(seconds: 30, machine: &m3, start: start) { _, _ in 5 }))
        var m4 = SubscriberLayerAdaptation()
        traces.append(("few packets", Self.trace(seconds: 30, perSecond: 10, machine: &m4, start: start) { _, _ in 50 }))
        // A cap of 1: never probed above it.
        var m5 = SubscriberLayerAdaptation()
        traces.append(("cap 1", Self.trace(seconds: 60, cap: 1, machine: &m5, start: start) { _, second in
            second == 1 ? 40 : 0
        }))
        // A stall: packets without frames after frames had been decoded; a new baseline; stop.
        traces.append(("stall, new counters, stop", [
            .preference(layers: 3, cap: 2),
            .sample(received: 0, lost: 0, decoded: 0, ms: 0), .sample(received: 100, lost: 0, decoded: 0, ms: 1000),
            .sample(received: 200, lost: 0, decoded: 15, ms: 2000), .sample(received: 300, lost: 0, decoded: 15, ms: 3000),
            .sample(received: 10, lost: 90, decoded: 1, ms: 6000), .sample(received: 110, lost: 90, decoded: 9, ms: 7000),
            .preference(layers: 2, cap: 1), .sample(received: 210, lost: 150, decoded: 12, ms: 8000), .stop,
            .sample(received: 300, lost: 400, decoded: 12, ms: 9000), .preference(layers: 3, cap: 0),
        ]))
        // At the thresholds: 8 of 100 lost lowers, 7 does not; 2 of 100 is clean (a probe after the hold), 3 is not;
        // 15 packets expected are judged, 14 are not.
        var thresholds: [Step] = [.preference(layers: 3, cap: 2), .sample(received: 0, lost: 0, decoded: nil, ms: 0)]
        var (received, lost, ms) = (0, 0, 0)
        for (expected, missed) in [(100, 7), (100, 8), (100, 0), (100, 0), (14, 14), (15, 15), (100, 3), (100, 3)]
            + Array(repeating: (100, 3), count: 8) + Array(repeating: (100, 2), count: 8) {
            received += expected - missed
            lost += missed
            ms += 1000
            thresholds.append(.sample(received: received, lost: lost, decoded: nil, ms: ms))
        }
        traces.append(("thresholds", thresholds))
        for seed in UInt64(1)...6 { traces.append(("random \(seed)", Self.randomSteps(seed: seed, count: 400))) }

        let browser = try await BrowserPage.withBlankPage { page in
            var outcomes: [[Outcome]] = []
            for trace in traces { outcomes.append(try await Self.jsOutcomes(page, trace.steps)) }
            return outcomes
        }
        var changes = 0
        for ((name, steps), js) in zip(traces, browser) {
            let swift = Self.swiftOutcomes(steps)
            changes += swift.count { $0.action != -2 }
            #expect(js.count == swift.count, "\(name): \(js.count) outcomes from the page for \(swift.count) steps")
            if let i = swift.indices.first(where: { $0 < js.count && swift[$0] != js[$0] }) {
                Issue.record("""
                    \(name): step \(i) (\(steps[i].json)) gives \(js[i]) in the browser, \(swift[i]) in Swift \
                    (action/layer/ceiling/hold); before it: \(swift[max(0, i - 3)..<i])
                    """)
            }
        }
        print("layer adaptation: \(traces.count) traces, \(traces.map(\.steps.count).reduce(0, +)) steps, "
              + "\(changes) changes compared, browser against Swift")
        // The traces exercise the machine: they change the limit many times (an empty comparison proves nothing).
        #expect(changes >= 50, "only \(changes) changes in all traces")

        // Figures of the "carries layer 1" trace checked directly: holds 12, 24, 48, then 60 s.
        let carries = browser[0]
        var holds: [Int] = []
        for (outcome, previous) in zip(carries.dropFirst(), carries) where outcome.action == 1 && previous.layer == 2 {
            holds.append(outcome.hold)
        }
        // (The first lowering, from the full size, is no failed probe: its hold is still 6 s.)
        #expect(Array(holds.prefix(5)) == [6_000, 12_000, 24_000, 48_000, 60_000], "\(holds)")
        #expect(carries.last?.layer == 1)
    }

    /// The layer sizes the browser assumes for a stream (`simulcastLayerSizes`) are the server's
    /// (`SimulcastSubstream.layerSizes`, the rule of the Swift publisher's `SimulcastLayout`) for the same sizes.
    @Test func theBrowsersLayerSizesAreTheSwiftPublishers() async throws {
        let sizes = [(1280, 720), (640, 480), (640, 360), (320, 240), (321, 181), (1920, 1080), (160, 90), (2, 2)]
        let text = try await BrowserPage.withBlankPage { page in
            try await page.page.evaluate("""
            (async () => {
              const { simulcastLayerSizes } = await import("/tokkit.js");
              return JSON.stringify([\(sizes.map { "[\($0.0),\($0.1)]" }.joined(separator: ","))]
                .map(([w, h]) => simulcastLayerSizes(w, h).map((s) => `${s.width}x${s.height}`).join(" ")));
            })()
            """, timeout: .seconds(20))
        }
        let js = try JSONDecoder().decode([String].self, from: Data(text.utf8))
        let swift = sizes.map { w, h in
            SimulcastSubstream.layerSizes(width: w, height: h).map { "\($0.width)x\($0.height)" }
                .joined(separator: " ")
        }
        #expect(js == swift)
        #expect(js.first == "320x180 640x360 1280x720")
    }
}
