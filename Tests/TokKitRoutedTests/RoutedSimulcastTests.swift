import Foundation
import Testing
import TokKit
import TokKitJanus
import TokKitProtocol
import TokKitServer
import TokKitTesting

/// Simulcast through a real Janus (issue 15): a TokKit publisher's routed upstream sends three VP8 layers
/// (160x90, 320x180, 640x360) on their own SSRCs (`a=ssrc-group:SIM`); a subscriber's `preferredResolution` makes the
/// server ask Janus for the matching layer for that subscription only. Run inside `unshare -n`, as scripts/test does.
@Suite("Routed simulcast through Janus", .serialized) struct RoutedSimulcastTests {
    /// Two subscribers get the full size; one prefers 320x180 and its decoded size changes (time printed), the
    /// other's stays 640x360 and keeps flowing; clearing the preference brings the full size back.
    @Test func preferredResolutionChangesOneSubscribersLayerOnly() async throws {
        try await RoutedLab.run { lab, janus, server in
            let sessionID = try await server.createSession(mediaMode: .routed).sessionID
            let alice = try await RoutedLab.connect(server, sessionID, lab)
            let publisher = Publisher(name: "simulcast", videoCapture: PatternCapturer(width: 640, height: 360))
            try await alice.publish(publisher)
            let streamID = try #require(publisher.stream?.streamID)

            let subscribers = try await RoutedLab.subscribers(2, to: streamID, server, sessionID, lab)
            func size(_ i: Int) -> String { let s = subscribers[i].2.snapshot; return "\(s.width)x\(s.height)" }
            let full = await eventually(timeout: .seconds(20)) {
                subscribers.allSatisfy { $0.2.frames >= 10 && $0.2.snapshot.width == 640 }
            }
            #expect(full, "sizes \(size(0)), \(size(1)); frames \(subscribers.map { $0.2.frames }); janus:\n\(janus.logTail(20))")
            guard full else { return }
            #expect(publisher.statistics.subscriptions.count == 1, "one upload, to the media router")

            // One subscriber prefers 320x180: its decoded size follows; measured from the setter.
            let asked = ContinuousClock.now
            subscribers[0].1.preferredResolution = VideoDimensions(width: 320, height: 180)
            let switched = await eventually(timeout: .seconds(5)) {
                subscribers[0].2.snapshot.width == 320
            }
            let took = ContinuousClock.now - asked
            let v = publisher.statistics.video
            print("simulcast: preferredResolution 320x180 → decoded \(size(0)) after \(took); publisher keyframes "
                  + "\(v.keyframesEncoded), requests answered \(v.keyframeRequests) (+\(v.keyframeRequestsIgnored) within 300 ms)")
            #expect(switched, "subscriber 0 still decodes \(size(0)) after 5 s; janus:\n\(janus.logTail(20))")
            #expect(subscribers[0].2.snapshot.height == 180)
            // The other one keeps the full size and keeps decoding.
            let before = subscribers[1].2.frames
            try await Task.sleep(for: .seconds(1))
            #expect(size(1) == "640x360")
            #expect(subscribers[1].2.frames > before + 10, "subscriber 1 decoded \(subscribers[1].2.frames - before) in 1 s")
            #expect(size(0) == "320x180")

            // A preference smaller than every layer gets the smallest; none gets the full size back.
            subscribers[0].1.preferredResolution = VideoDimensions(width: 100, height: 100)
            #expect(await eventually(timeout: .seconds(5)) {
                subscribers[0].2.snapshot.width == 160
            }, "smallest layer: \(size(0))")
            subscribers[0].1.preferredResolution = nil
            #expect(await eventually(timeout: .seconds(5)) {
                subscribers[0].2.snapshot.width == 640
            }, "full size again: \(size(0))")
            #expect(size(1) == "640x360")

            await alice.disconnect()
            for (bob, _, _) in subscribers { await bob.disconnect() }
        }
    }
}
