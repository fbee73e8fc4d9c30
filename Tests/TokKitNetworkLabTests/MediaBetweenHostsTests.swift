import Foundation
import Testing
import TokKitNetworkLab

/// Sessions between lab hosts, Swift ↔ Swift: `tokkit-server` on one host, `tokkit-lab-peer`s on others, each
/// publishing a pattern and a tone and subscribing to the other. Media must flow both ways, over the path each case
/// expects (host, server-reflexive or relayed candidates).
@Suite("Media between hosts")
struct MediaBetweenHostsTests {
    @Test("two hosts on different subnets, routed: host candidates on their own addresses; video and audio both ways")
    func routedHosts() async throws {
        try await NetworkLab.run { lab in
            let serverHost = try await lab.addHost("server")
            let a = try await lab.addHost("a"), b = try await lab.addHost("b")
            let server = try await LabSessionServer.start(lab, on: serverHost)
            let peerA = try await LabPeer.join(lab, on: a, server: server, name: "a")
            let peerB = try await LabPeer.join(lab, on: b, server: server, name: "b")
            let seenByA = try await peerA.waitForMedia(), seenByB = try await peerB.waitForMedia()
            #expect(seenByA.local == "host" && seenByA.localAddress == a.address, "\(seenByA.pair ?? "no pair")")
            #expect(seenByA.remote == "host" && seenByA.remoteAddress == b.address, "\(seenByA.pair ?? "no pair")")
            #expect(seenByB.local == "host" && seenByB.localAddress == b.address, "\(seenByB.pair ?? "no pair")")
            #expect((seenByA.psnr ?? 0) >= 30 && (seenByB.psnr ?? 0) >= 30)
            #expect(await peerA.leave() == 0)
            #expect(await peerB.leave() == 0)
        }
    }

    @Test("one host behind NAT: the path uses its server-reflexive address, learnt from the lab's STUN server")
    func natWithSTUN() async throws {
        try await NetworkLab.run { lab in
            let serverHost = try await lab.addHost("server"), turnHost = try await lab.addHost("turn")
            let inside = try await lab.addHost("inside", behind: .portRestricted), b = try await lab.addHost("b")
            let turn = try await TURNServer.start(in: lab, on: turnHost)
            let server = try await LabSessionServer.start(lab, on: serverHost, stun: [turn.stunURL])
            let peerInside = try await LabPeer.join(lab, on: inside, server: server, name: "inside")
            let peerB = try await LabPeer.join(lab, on: b, server: server, name: "b")
            let seenInside = try await peerInside.waitForMedia(), seenByB = try await peerB.waitForMedia()
            // B reaches the NATed host only at its gateway's public address; the NATed host's end is reflexive.
            #expect(seenByB.remoteAddress == inside.publicAddress, "\(seenByB.pair ?? "no pair")")
            #expect(["srflx", "prflx"].contains(seenByB.remote ?? ""), "\(seenByB.pair ?? "no pair")")
            #expect(seenInside.remoteAddress == b.address, "\(seenInside.pair ?? "no pair")")
            #expect(seenInside.local != "relay" && seenByB.local == "host")
            #expect(await peerInside.leave() == 0)
            #expect(await peerB.leave() == 0)
        }
    }

    @Test("UDP blocked for one host: TURN over TCP; with 3478 closed too, TURN over TLS; media both ways")
    func udpBlockedUsesTURNOverTCPThenTLS() async throws {
        try await NetworkLab.run { lab in
            let serverHost = try await lab.addHost("server"), turnHost = try await lab.addHost("turn")
            let walled = try await lab.addHost("walled"), b = try await lab.addHost("b")
            let turn = try await TURNServer.start(in: lab, on: turnHost)
            let server = try await LabSessionServer.start(lab, on: serverHost, stun: [turn.stunURL],
                                                          turn: [turn.udpURL, turn.tcpURL, turn.tlsURL],
                                                          turnSecret: turn.secret)
            try await lab.impair(walled, Impairments(blockUDP: true))
            for (round, blockedTCP) in [(1, [Int]()), (2, [3478])] {
                try await lab.impair(walled, Impairments(blockUDP: true, blockedTCPPorts: blockedTCP))
                let since = turn.logLines  // round 2's allocation may reuse round 1's relay port
                let peerWalled = try await LabPeer.join(lab, on: walled, server: server, name: "walled-\(round)")
                let peerB = try await LabPeer.join(lab, on: b, server: server, name: "b-\(round)")
                let seenWalled = try await peerWalled.waitForMedia(), seenByB = try await peerB.waitForMedia()
                #expect(seenWalled.local == "relay", "round \(round): \(seenWalled.pair ?? "no pair")")
                #expect(seenByB.remoteAddress == turn.host.address, "round \(round): \(seenByB.pair ?? "no pair")")
                #expect(await peerWalled.leave() == 0)
                #expect(await peerB.leave() == 0)
                // Which listener the walled host's allocation came through: TCP on 3478, or TLS on 5349.
                let relay = "\(seenWalled.localAddress ?? ""):\(seenWalled.localPort ?? 0)"
                let port = await turn.listenerPort(ofAllocation: relay, client: walled.address, since: since)
                #expect(port == (blockedTCP.isEmpty ? 3478 : 5349), "round \(round): relay \(relay) via \(port ?? 0)")
            }
        }
    }

    @Test("transportPolicy relay uses TURN although a direct path exists")
    func relayPolicy() async throws {
        try await NetworkLab.run { lab in
            let serverHost = try await lab.addHost("server"), turnHost = try await lab.addHost("turn")
            let a = try await lab.addHost("a"), b = try await lab.addHost("b")
            let turn = try await TURNServer.start(in: lab, on: turnHost)
            let server = try await LabSessionServer.start(lab, on: serverHost, stun: [turn.stunURL],
                                                          turn: [turn.udpURL], turnSecret: turn.secret)
            let peerA = try await LabPeer.join(lab, on: a, server: server, name: "a", options: ["--relay"])
            let peerB = try await LabPeer.join(lab, on: b, server: server, name: "b")
            let seenByA = try await peerA.waitForMedia(), seenByB = try await peerB.waitForMedia()
            #expect(seenByA.local == "relay", "\(seenByA.pair ?? "no pair")")
            #expect(seenByB.remote == "relay" || seenByB.remoteAddress == turn.host.address,
                    "\(seenByB.pair ?? "no pair")")
            #expect(await peerA.leave() == 0)
            #expect(await peerB.leave() == 0)
        }
    }
}
