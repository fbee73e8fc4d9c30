import Foundation
import Testing
import TokKit
import TokKitChromiumSupport
import TokKitJanus
import TokKitNetworkLab
import TokKitProtocol
import TokKitServer
import TokKitTesting

/// Issue 15's acceptance: a routed session with one publisher and six subscribers (four Swift, two Chromium) on
/// other lab hosts than the publisher's: every subscriber decodes ≥ 90 % of the frames sent, and the publisher's
/// upload stays within 1.2 × that of one stream. Run inside `unshare -n`, as scripts/test does.
@Suite("Routed acceptance: one publisher, six subscribers", .serialized) struct RoutedSixSubscribersTests {
    /// The measuring window, after everyone decodes.
    static let window: Duration = .seconds(10)
    /// Before the one-subscriber window: the encoder's rate settles after the first frames.
    static let settle: Duration = .seconds(4)

    /// The publisher is a Swift client in the test process (its peer on the lab's test address); Janus has a lab host
    /// of its own; each Swift subscriber is a `tokkit-lab-peer` process in a lab host of its own, each Chromium one
    /// a headless browser in a lab host of its own.
    ///
    /// "One stream" is what the publisher's encoders produced in the same window (every simulcast layer, once): with
    /// six subscribers the upload's video bytes must stay within 1.2 × that (RTP headers and retransmissions fit in
    /// the margin; six copies would be 6 ×), and the bytes sent per byte encoded within 1.2 × those of the same
    /// session with one subscriber. Both are per byte encoded, so they do not depend on the encoder's rate control,
    /// which varies ±15 % between windows on this machine. For orientation the test also prints the upload
    /// of the same session with one subscriber, measured before the other five join, and 6 × that as the estimate of a
    /// relayed session of the same size (not measured).
    @Test func sixSubscribersOnOtherHostsDecodeWhileThePublisherUploadsOnce() async throws {
        try await RoutedLab.withPages { pageLab in
            let (lab, janus, server, sessionID, origin) = (pageLab.lab, pageLab.janus, pageLab.server, pageLab.sessionID,
                                                           pageLab.origin)
            let alice = try await pageLab.connect()
            // Camera-like content (640x480, three simulcast layers): the upload figures mean something. 15 fps, not
            // 30: at 30 fps, on the 2-core machine under load (load average 24), the four debug-built lab peers (each
            // also computing a full-frame PSNR per frame in CountingRenderer) fell to 60-65 % decoded while Chromium
            // kept 94-96 %, with no packet lost: the test would measure the machine, not routing.
            let publisher = Publisher(name: "six", videoCapture: SequenceCapturer(.textured, framesPerSecond: 15))
            try await alice.publish(publisher)
            let streamID = try #require(publisher.stream?.streamID).rawValue
            func sent() -> (frames: UInt64, bytes: UInt64, encoded: UInt64, keyframes: Int, target: Int) {
                let video = publisher.statistics.video
                return (UInt64(video.framesEncoded), RoutedLab.videoBytesSent(publisher), video.bytesEncoded,
                        video.keyframesEncoded, video.targetBitrate)
            }

            // Swift subscribers: a lab peer each, on a host of its own, subscribing only.
            var peers: [LabProcess] = []
            func addSwiftSubscriber(_ i: Int) async throws {
                let host = try await lab.addHost("swift\(i)")
                let token = try await server.issueToken(sessionID: sessionID, role: .subscriber, connectionData: "")
                peers.append(try lab.spawn(on: host, [
                    try Built.path("tokkit-lab-peer"), "--server", origin, "--api-key", RoutedLab.apiKey,
                    "--session", sessionID, "--token", token.token, "--name", "swift\(i)", "--no-publish",
                    "--seconds", "90", "--stats-interval", "200",
                ]))
            }
            func swiftFrames(_ peer: LabProcess) -> Int {
                for text in peer.lines.reversed() {
                    guard let line = try? JSONDecoder().decode(LabPeer.Line.self, from: Data(text.utf8)) else { continue }
                    if line.event == "stats" && line.stream == streamID { return line.frames ?? 0 }
                }
                return 0
            }
            defer { for peer in peers { peer.closeInput() } }

            // One subscriber: the publisher's upload for "one stream".
            try await addSwiftSubscriber(0)
            let first = await eventually(timeout: .seconds(30)) { swiftFrames(peers[0]) >= 30 }
            #expect(first, "swift0 decoded \(swiftFrames(peers[0])); output: \(peers[0].lines.suffix(5)); janus:\n\(janus.logTail(20))")
            guard first else { return }
            // The same settling time as the six-subscriber window gets while the others join.
            try await Task.sleep(for: Self.settle)
            let one0 = sent()
            try await Task.sleep(for: Self.window)
            let one = sent()
            let oneBytes = one.bytes - one0.bytes
            // Bytes sent per byte encoded with one subscriber: the upload of "one stream", freed of the encoder's rate
            // variation between windows.
            let oneOverEncoded = Double(oneBytes) / Double(max(one.encoded - one0.encoded, 1))

            // Five more: three Swift, two Chromium.
            for i in 1..<4 { try await addSwiftSubscriber(i) }
            try await pageLab.withBrowser("chromium0") { browser0, _ in
                try await pageLab.withBrowser("chromium1") { browser1, _ in
                    var recorders: [ConsoleRecorder] = []
                    for browser in [browser0, browser1] {
                        recorders.append(try await pageLab.openPage(
                            browser, role: .subscriber,
                            query: [URLQueryItem(name: "publish", value: "0"), URLQueryItem(name: "interval", value: "200")])
                            .recorder)
                    }
                    func browserFrames(_ recorder: ConsoleRecorder) -> Int {
                        LabPage.reports(recorder).last { $0.event == "stats" }?.frames ?? 0
                    }
                    func counts() -> [Int] { peers.map(swiftFrames) + recorders.map(browserFrames) }

                    let all = await eventually(timeout: .seconds(40)) { counts().allSatisfy { $0 >= 30 } }
                    #expect(all, """
                        decoded \(counts()); browser consoles: \(recorders.map { $0.texts.suffix(5) }); \
                        janus:\n\(janus.logTail(20))
                        """)
                    if all {
                        let start = sent(), decoded0 = counts()
                        try await Task.sleep(for: Self.window)
                        let end = sent(), decoded = zip(counts(), decoded0).map { $0 - $1 }
                        let frames = Int(end.frames - start.frames), bytes = end.bytes - start.bytes
                        let encodedBytes = end.encoded - start.encoded
                        let ratio = Double(bytes) / Double(max(oneBytes, 1))
                        let overEncoded = Double(bytes) / Double(max(encodedBytes, 1))
                        print("""
                            routed, six subscribers over \(Self.window): publisher sent \(frames) frames (full-size \
                            layer), decoded [swift ×4, chromium ×2] \(decoded) \
                            (\(decoded.map { String(format: "%.1f %%", 100 * Double($0) / Double(max(frames, 1))) })); \
                            upload \(bytes) B for \(encodedBytes) B encoded (\(String(format: "%.2f", overEncoded)) ×, \
                            \(bytes / UInt64(max(frames, 1))) B/frame), one subscriber \(oneBytes) B \
                            (\(one.frames - one0.frames) frames, \(oneBytes / max(one.frames - one0.frames, 1)) B/frame): \
                            \(String(format: "%.2f", ratio)) ×; relayed estimate (6 × one stream) \(6 * oneBytes) B; keyframes \
                            \(end.keyframes - start.keyframes) (one subscriber: \(one.keyframes - one0.keyframes)), \
                            target \(end.target) b/s (one subscriber: \(one.target))
                            """)
                        #expect(frames >= 60, "the publisher encodes (\(frames) frames in \(Self.window))")
                        for (i, count) in decoded.enumerated() {
                            let last = i < peers.count ? peers[i].lines.last { $0.contains("\"stats\"") } ?? "" : ""
                            #expect(Double(count) >= 0.9 * Double(frames), "subscriber \(i) decoded \(count) of \(frames); \(last)")
                        }
                        #expect(publisher.statistics.subscriptions.count == 1, "one upload, to the media router")
                        #expect(encodedBytes > 0 && overEncoded <= 1.2,
                                "upload \(bytes) B with six subscribers for \(encodedBytes) B encoded (one subscriber: \(oneBytes) B)")
                        #expect(oneOverEncoded > 0 && overEncoded <= 1.2 * oneOverEncoded, """
                            six subscribers: \(String(format: "%.3f", overEncoded)) B sent per B encoded, one subscriber \
                            \(String(format: "%.3f", oneOverEncoded))
                            """)
                        let status = try #require(await server.routedMediaStatus())
                        #expect(status.publishers == 1 && status.subscribers == 6, "\(status)")
                    }
                    for recorder in recorders { await recorder.stop() }
                }
            }
            for peer in peers {
                peer.closeInput()
                _ = await peer.waitForExit(timeout: .seconds(10))
            }
            await alice.disconnect()
        }
    }
}
