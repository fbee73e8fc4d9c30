import Foundation
import Testing
import TokKitNetworkLab

/// Media over an impaired link between two lab hosts, Swift ↔ Swift, briefly: the machinery works (loss is seen
/// and repaired, freezes are counted, pictures stay right). The quality goals over a minute, against Chromium,
/// are `network-bench`'s.
@Suite("Impaired links")
struct ImpairedLinkTests {
    @Test("5 % loss each way, 100 ms round trip, jitter: media keeps flowing, losses are NACKed, pictures stay right")
    func lossDelayAndJitter() async throws {
        try await NetworkLab.run { lab in
            let serverHost = try await lab.addHost("server")
            let a = try await lab.addHost("a", delayable: true), b = try await lab.addHost("b", delayable: true)
            let server = try await LabSessionServer.start(lab, on: serverHost)
            for host in [a, b] { try await lab.setDelay(host, .milliseconds(25), jitter: .milliseconds(5)) }
            try await lab.impair(a, Impairments(dropPercent: 5))
            let options = ["--width", "640", "--height", "480", "--fps", "30"]
            let peerA = try await LabPeer.join(lab, on: a, server: server, name: "a", options: options)
            let peerB = try await LabPeer.join(lab, on: b, server: server, name: "b", options: options)
            let startA = try await peerA.waitForMedia(frames: 30, timeout: .seconds(60))
            _ = try await peerB.waitForMedia(frames: 30, timeout: .seconds(60))
            // Ten more seconds of media over the bad link.
            let laterA = try await peerA.waitForMedia(frames: (startA.patternFrames ?? 0) + 150, timeout: .seconds(60))
            let laterB = try await peerB.waitForMedia(frames: (peerB.lastStats?.patternFrames ?? 0) + 150,
                                                      timeout: .seconds(60))
            for (seen, label) in [(laterA, "a"), (laterB, "b")] {
                // Lost packets show as NACKs (the retransmissions fill the gaps, so cumulative loss may stay 0).
                #expect((seen.nacksSent ?? 0) > 0, "\(label) asked for retransmissions: \(seen)")
                #expect((seen.psnr ?? 0) >= 30, "\(label) pictures: \(seen)")
                #expect((seen.framesSeconds ?? 0) > 5 && seen.freezeCount != nil, "\(label): \(seen)")
                print("network lab: 5 % loss, 100 ms RTT: \(label) unrepaired loss \(seen.videoLost ?? 0) packets, sent "
                      + "\(seen.nacksSent ?? 0) NACKs, \(seen.freezeCount ?? 0) freezes "
                      + "(\(seen.freezeSeconds ?? 0) s of \(seen.framesSeconds ?? 0) s), audio concealed "
                      + "\(seen.audioConcealed ?? 0) of \(seen.audioDecoded ?? 0), PSNR \(seen.psnr ?? 0)")
            }
            for peer in [peerA, peerB] {
                let events = peer.lines.map(\.event)
                #expect(!events.contains("subscriberReconnecting"), "a lossy path is not a lost one: \(peer.host.label) \(events.filter { $0 != "stats" && $0 != "health" && $0 != "publisher" })")
            }
            #expect(await peerA.leave() == 0)
            #expect(await peerB.leave() == 0)
        }
    }
}
