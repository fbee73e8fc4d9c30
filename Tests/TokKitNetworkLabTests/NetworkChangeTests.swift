import Foundation
import Testing
import TokKitNetworkLab

/// Paths that change or die mid-call, Swift ↔ Swift: a host whose address changes gets its media back by an ICE
/// restart (a new peer and offer through the relay) without a new subscription, the subscribers reporting
/// reconnecting and reconnected; a host that vanishes is reported by the other side within the restart window and
/// everything of it is freed.
@Suite("Network changes")
struct NetworkChangeTests {
    @Test("a host's address changes mid-call: both subscriptions reconnect by ICE restart and media resumes")
    func addressChange() async throws {
        try await NetworkLab.run { lab in
            let serverHost = try await lab.addHost("server")
            let a = try await lab.addHost("a"), b = try await lab.addHost("b")
            let server = try await LabSessionServer.start(lab, on: serverHost)
            let peerA = try await LabPeer.join(lab, on: a, server: server, name: "a")
            let peerB = try await LabPeer.join(lab, on: b, server: server, name: "b")
            _ = try await peerA.waitForMedia()
            _ = try await peerB.waitForMedia()

            let changed = ContinuousClock.now
            let moved = try await lab.changeAddress(of: a)
            // Both directions: A's subscription to B and B's to A reconnect, on A's new address.
            for (peer, label) in [(peerA, "a"), (peerB, "b")] {
                _ = try await peer.process.waitForLine(timeout: .seconds(40), "\(label): subscriberReconnected") {
                    $0.contains("\"subscriberReconnected\"")
                }
            }
            let reconnected = ContinuousClock.now - changed
            let framesBefore = try #require(peerB.lastStats?.frames)
            let seenByB = try await peerB.waitForMedia(frames: framesBefore + 30)
            let seenByA = try await peerA.waitForMedia(frames: (peerA.lastStats?.frames ?? 0) + 30)
            print("network lab: media back on both subscriptions \(reconnected) after the address change")
            #expect(seenByB.remoteAddress == moved.address, "\(seenByB.pair ?? "no pair")")
            #expect(seenByA.localAddress == moved.address, "\(seenByA.pair ?? "no pair")")
            for peer in [peerA, peerB] {
                let events = peer.lines.map(\.event)
                #expect(events.filter { $0 == "subscriberReconnecting" }.count == 1, "\(peer.host.label): \(events)")
                #expect(!events.contains("subscriberFailed") && !events.contains("streamDestroyed"),
                        "\(peer.host.label): \(events)")
                #expect(events.filter { $0 == "subscribing" }.count == 1, "no new subscription: \(events)")
            }
            #expect(await peerA.leave() == 0)
            #expect(await peerB.leave() == 0)
        }
    }

    @Test("a host vanishes: the other side reports it within the restart window and frees its media")
    func hostVanishes() async throws {
        try await NetworkLab.run { lab in
            let serverHost = try await lab.addHost("server")
            let a = try await lab.addHost("a"), b = try await lab.addHost("b")
            let server = try await LabSessionServer.start(lab, on: serverHost)
            let peerA = try await LabPeer.join(lab, on: a, server: server, name: "a")
            let peerB = try await LabPeer.join(lab, on: b, server: server, name: "b")
            _ = try await peerA.waitForMedia()
            _ = try await peerB.waitForMedia()

            let vanished = ContinuousClock.now
            try await lab.impair(a, Impairments(offline: true))
            _ = try await peerB.process.waitForLine(timeout: .seconds(10), "b: subscriberReconnecting") {
                $0.contains("\"subscriberReconnecting\"")
            }
            let noticed = ContinuousClock.now - vanished
            // Then the end: the subscription fails (no media restored in 30 s) or the server drops A's connection
            // (heartbeat), whichever comes first; either way B lets go of every peer connection it had with A.
            _ = try await peerB.process.waitForLine(timeout: .seconds(60), "b: the subscription to a ends") {
                $0.contains("\"subscriberFailed\"") || $0.contains("\"streamDestroyed\"")
            }
            let ended = ContinuousClock.now - vanished
            _ = try await peerB.process.waitForLine(timeout: .seconds(40), "b: no negotiation left") {
                $0.contains("\"negotiations\":0") && $0.contains("\"subscriptions\":0")
            }
            print("network lab: a vanished host noticed after \(noticed), its subscription ended after \(ended)")
            #expect(await peerB.leave() == 0)
        }
    }
}
