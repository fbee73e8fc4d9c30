import Foundation
import Testing
import TokKit
import TokKitChromiumSupport
import TokKitNetworkLab
import TokKitTesting
import TokKitJanus
import TokKitProtocol

/// The browser client's routed subscriber lowers its simulcast layer when its downlink cannot carry it, and takes
/// the full size back when the link recovers (tokkit.js `LayerAdaptation`, the rules of the Swift client; Docs/Routing.md,
/// "Simulcast: the downlink lowers the layer"). Real Janus in a lab host, headless Chromium on a host of its own whose
/// link is capped with `tc tbf`; run inside `unshare -n`, as scripts/test does.
@Suite("Browser downlink adaptation through Janus", .serialized) struct RoutedBrowserDownlinkTests {
    /// A Swift publisher (640x480 camera-like pictures at 15 fps, three layers: about 30, 125 and 345 kb/s) and a
    /// Chromium subscriber. Capping the browser host's link at 200 kb/s (both directions) lowers the page's layer (its
    /// `<video>`'s width and the decoded frames' drop below 640, `bandwidthLimitedResolution` is set) and it keeps
    /// decoding there; lifting the cap brings 640x480 back. Both times are printed.
    @Test func aCappedBrowserGetsALowerLayerAndTheFullSizeAgainWhenItRecovers() async throws {
        try await RoutedLab.withPages { lab in
            let alice = try await lab.connect()
            let publisher = Publisher(name: "adaptive", videoCapture: SequenceCapturer(.textured, framesPerSecond: 15))
            try await alice.publish(publisher)

            try await lab.withBrowser("capped") { browser, host in
                let (page, recorder) = try await lab.openPage(
                    browser, role: .subscriber,
                    query: [URLQueryItem(name: "publish", value: "0"), URLQueryItem(name: "interval", value: "200")])
                func last() -> LabPage.Report? { LabPage.reports(recorder).last { $0.event == "stats" } }
                func describe() -> String {
                    let r = last()
                    return "video \(r?.videoWidth ?? 0) decoded \(r?.width ?? 0)x\(r?.height ?? 0) frames "
                        + "\(r?.frames ?? 0) lost \(r?.packetsLost ?? 0) limit \(r?.limitWidth ?? 0)"
                }
                let joined = await eventually(timeout: .seconds(30)) { (last()?.frames ?? 0) >= 1 }
                #expect(joined, "the page decoded nothing: \(recorder.texts.suffix(10)); janus:\n\(lab.janus.logTail(20))")
                guard joined else { return }
                // The <video> plays (its videoWidth is the size shown).
                _ = try await page.evaluate("tk.subscribers[0].element.play().then(() => 'playing', (e) => String(e))",
                                            timeout: .seconds(10))
                let full = await eventually(timeout: .seconds(30)) {
                    guard let r = last() else { return false }
                    return (r.frames ?? 0) >= 10 && r.width == 640 && r.videoWidth == 640
                }
                #expect(full, "\(describe()); console \(recorder.texts.suffix(8)); janus:\n\(lab.janus.logTail(20))")
                guard full else { return }

                // Cap the browser's link: its layer goes down by itself.
                try await lab.lab.impair(host, Impairments(bandwidthKbit: 200))
                let capStart = ContinuousClock.now
                let lowered = await eventually(timeout: .seconds(30)) {
                    guard let r = last() else { return false }
                    return (r.limitWidth ?? 0) > 0 && (r.videoWidth ?? 640) < 640 && (r.width ?? 640) < 640
                }
                let toLower = ContinuousClock.now - capStart
                print("browser downlink adaptation: capped at 200 kb/s → \(describe()) after \(toLower)")
                func steps() -> String {
                    // The stats lines (every 200 ms) where the decoded size or the limit changed.
                    var out: [String] = [], previous = ""
                    for r in LabPage.reports(recorder) where r.event == "stats" {
                        let now = "\(r.width ?? 0)/\(r.videoWidth ?? 0)/limit \(r.limitWidth ?? 0)"
                        if now != previous { out.append("\(Int(r.t ?? 0)) ms \(now) lost \(r.packetsLost ?? 0)") }
                        previous = now
                    }
                    return out.joined(separator: "; ")
                }
                #expect(lowered, "still the full size 30 s after the cap: \(describe())")
                guard lowered else { return }
                // It keeps decoding at the lower layer.
                let before = last()?.frames ?? 0
                let decoding = await eventually(timeout: .seconds(15)) {
                    (last()?.frames ?? 0) >= before + 20 && (last()?.width ?? 640) < 640
                }
                let trace = LabPage.reports(recorder).filter { $0.event == "stats" }.suffix(40).enumerated()
                    .filter { $0.offset % 4 == 0 }
                    .map { "\($0.element.width ?? 0) f\($0.element.frames ?? 0) l\($0.element.packetsLost ?? 0) "
                        + "limit \($0.element.limitWidth ?? 0)" }
                #expect(decoding, "the capped page stopped decoding: \(describe()); last stats: \(trace)")

                // The link recovers: probing brings the full size back (hold 6 s, doubled by each failed probe).
                try await lab.lab.impair(host, Impairments())
                let liftStart = ContinuousClock.now
                let recovered = await eventually(timeout: .seconds(90)) {
                    guard let r = last() else { return false }
                    return r.width == 640 && r.videoWidth == 640 && (r.limitWidth ?? 0) == 0
                }
                let toRecover = ContinuousClock.now - liftStart
                print("browser downlink adaptation: cap lifted → \(describe()) after \(toRecover)")
                print("browser downlink adaptation: decoded/video width and limit over the run: \(steps())")
                #expect(recovered, "not back to the full size 90 s after the cap was lifted: \(describe())")
                let after = last()?.frames ?? 0
                #expect(await eventually(timeout: .seconds(10)) { (last()?.frames ?? 0) >= after + 20 },
                        "decoding after recovery: \(describe())")
                #expect(!LabPage.reports(recorder).contains { $0.event == "error" }, "\(recorder.texts.suffix(10))")
                await recorder.stop()
            }
            await alice.disconnect()
        }
    }
}
