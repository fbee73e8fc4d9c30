import Foundation
import Testing
import TokKit
import TokKitJanus
import TokKitNetworkLab
import TokKitProtocol
import TokKitServer
import TokKitTesting

/// A routed subscriber whose downlink cannot carry the simulcast layer it gets is moved to a lower one by itself, and
/// back when the link recovers (issue 15; Docs/Routing.md, "Simulcast: the downlink lowers the layer"). Real Janus
/// in a lab host; run inside `unshare -n`, as scripts/test does.
@Suite("Routed downlink adaptation through Janus", .serialized) struct RoutedDownlinkAdaptationTests {
    /// One publisher (640x480 camera-like pictures at 15 fps, three layers: about 30, 125 and 345 kb/s), a subscriber
    /// in the test process on a clean link and a `tokkit-lab-peer` subscriber on a host of its own. Capping that
    /// host's link at 200 kb/s moves it to a lower layer, where it keeps decoding; the clean one stays at 640x480;
    /// lifting the cap brings the full size back. Both times are printed.
    @Test func aCappedDownlinkGetsALowerLayerAndTheFullSizeAgainWhenItRecovers() async throws {
        try await RoutedLab.run(configure: { lab, configuration in
            configuration.host = lab.testAddress
        }) { lab, _, server in
            let sessionID = try await server.createSession(mediaMode: .routed).sessionID
            let alice = try await RoutedLab.connect(server, sessionID, lab, host: lab.testAddress)
            let publisher = Publisher(name: "adaptive", videoCapture: SequenceCapturer(.textured, framesPerSecond: 15))
            try await alice.publish(publisher)
            let streamID = try #require(publisher.stream?.streamID)

            // The clean subscriber, in the test process.
            let bob = try await RoutedLab.connect(server, sessionID, lab, host: lab.testAddress)
            #expect(await eventually { bob.streams[streamID] != nil })
            let renderer = CountingRenderer()
            let clean = Subscriber(stream: try #require(bob.streams[streamID]), videoRender: renderer)
            try await bob.subscribe(clean)

            // The capped one: a lab peer on a host of its own.
            let host = try await lab.addHost("capped")
            let token = try await server.issueToken(sessionID: sessionID, role: .subscriber, connectionData: "")
            // The peer stays longer than every wait below together (175 s).
            let peer = try lab.spawn(on: host, [
                try Built.path("tokkit-lab-peer"), "--server", "http://\(lab.testAddress):\(server.port ?? 0)",
                "--api-key", RoutedLab.apiKey, "--session", sessionID, "--token", token.token, "--name", "capped",
                "--no-publish", "--seconds", "240", "--stats-interval", "200",
            ])
            defer { peer.closeInput() }
            func capped() -> LabPeer.Line? {
                for text in peer.lines.reversed() {
                    guard let line = try? JSONDecoder().decode(LabPeer.Line.self, from: Data(text.utf8)) else { continue }
                    if line.event == "stats" && line.stream == streamID.rawValue { return line }
                }
                return nil
            }
            func describe() -> String {
                let c = capped()
                return "capped \(c?.width ?? 0)x\(c?.height ?? 0) frames \(c?.frames ?? 0) lost \(c?.videoLost ?? 0) "
                    + "limit \(c?.limitWidth ?? 0); clean \(renderer.snapshot.width)x\(renderer.snapshot.height) "
                    + "frames \(renderer.frames)"
            }

            let full = await eventually(timeout: .seconds(30)) {
                renderer.frames >= 10 && renderer.snapshot.width == 640 && (capped()?.frames ?? 0) >= 10
                    && capped()?.width == 640
            }
            #expect(full, "\(describe()); peer:\n\(peer.lines.suffix(5).joined(separator: "\n"))")
            guard full else { return }

            // Cap the lab peer's link: its layer goes down by itself.
            try await lab.impair(host, Impairments(bandwidthKbit: 200))
            let capStart = ContinuousClock.now
            let lowered = await eventually(timeout: .seconds(30)) {
                guard let line = capped() else { return false }
                return (line.limitWidth ?? 0) > 0 && (line.width ?? 640) < 640
            }
            let toLower = ContinuousClock.now - capStart
            print("downlink adaptation: capped at 200 kb/s → decoding \(describe()) after \(toLower)")
            #expect(lowered, "still the full size 30 s after the cap: \(describe())")
            guard lowered else { return }
            // It keeps decoding at the lower layer; the clean subscriber keeps the full size.
            let (cappedBefore, cleanBefore) = (capped()?.frames ?? 0, renderer.frames)
            let decoding = await eventually(timeout: .seconds(15)) {
                (capped()?.frames ?? 0) >= cappedBefore + 20 && (capped()?.width ?? 640) < 640
            }
            let trace = peer.lines.filter { $0.contains("\"stats\"") }.suffix(40).enumerated()
                .filter { $0.offset % 4 == 0 }.map(\.element).joined(separator: "\n")
            #expect(decoding, "the capped subscriber stopped decoding: \(describe()); its last stats lines:\n\(trace)")
            #expect(renderer.snapshot.width == 640, "the clean subscriber's layer changed: \(describe())")
            #expect(renderer.frames >= cleanBefore + 20, "the clean subscriber stopped decoding: \(describe())")

            // The link recovers: probing brings the full size back (hold 6 s, doubled by each failed probe).
            try await lab.impair(host, Impairments())
            let liftStart = ContinuousClock.now
            let recovered = await eventually(timeout: .seconds(90)) {
                guard let line = capped() else { return false }
                return line.width == 640 && (line.limitWidth ?? 0) == 0
            }
            let toRecover = ContinuousClock.now - liftStart
            print("downlink adaptation: cap lifted → decoding \(describe()) after \(toRecover)")
            #expect(recovered, "not back to the full size 90 s after the cap was lifted: \(describe())")
            let cappedAfter = capped()?.frames ?? 0
            #expect(await eventually(timeout: .seconds(10)) { (capped()?.frames ?? 0) >= cappedAfter + 20 },
                    "decoding after recovery: \(describe())")
            #expect(renderer.snapshot.width == 640)
            await bob.disconnect()
            await alice.disconnect()
        }
    }
}
