import Foundation
import Testing
import TokKitNetworkLab

/// STUN and TURN servers that are wrong, unreachable or refuse: a subscription ends with a clear error (1006, the
/// media connection failed) in bounded time, or media takes another path; nothing hangs and both peers leave
/// cleanly.
@Suite("Bad network input")
struct BadNetworkInputTests {
    @Test("TURN credentials minted with the wrong secret: relay-only peers fail with 1006, no hang")
    func wrongTURNSecret() async throws {
        try await NetworkLab.run { lab in
            let serverHost = try await lab.addHost("server"), turnHost = try await lab.addHost("turn")
            let a = try await lab.addHost("a"), b = try await lab.addHost("b")
            let turn = try await TURNServer.start(in: lab, on: turnHost, secret: "the-right-secret")
            let server = try await LabSessionServer.start(lab, on: serverHost, turn: [turn.udpURL, turn.tcpURL],
                                                          turnSecret: "a-wrong-secret")
            try await Self.expectBothFail(lab, a, b, server: server, options: ["--relay"])
            #expect(turn.process.lines.contains { $0.contains("401") || $0.contains("Unauthorized")
                || $0.contains("check_stun_auth") }, "coturn refused: \(turn.process.lines.suffix(5))")
        }
    }

    @Test("an expired TURN credential: relay-only peers fail with 1006, no hang")
    func expiredTURNCredential() async throws {
        try await NetworkLab.run { lab in
            let serverHost = try await lab.addHost("server"), turnHost = try await lab.addHost("turn")
            let a = try await lab.addHost("a"), b = try await lab.addHost("b")
            let turn = try await TURNServer.start(in: lab, on: turnHost)
            let server = try await LabSessionServer.start(lab, on: serverHost)
            // A correctly signed TURN REST API credential that expired an hour ago.
            let username = "\(Int(Date().timeIntervalSince1970) - 3_600):lab"
            let credential = try await Command.run([
                "/bin/sh", "-c", "printf %s \"$0\" | /usr/bin/openssl dgst -sha1 -hmac \"$1\" -binary | base64",
                username, turn.secret,
            ]).trimmingCharacters(in: .whitespacesAndNewlines)
            try await Self.expectBothFail(lab, a, b, server: server, options: [
                "--relay", "--custom-servers-only", "--ice-server", turn.udpURL, "--ice-username", username,
                "--ice-credential", credential,
            ])
        }
    }

    @Test("an unreachable TURN server: relay-only peers fail with 1006, no hang")
    func unreachableTURN() async throws {
        try await NetworkLab.run { lab in
            let serverHost = try await lab.addHost("server")
            let a = try await lab.addHost("a"), b = try await lab.addHost("b")
            // No lab host owns 198.18.250.2: the router has no route to it.
            let server = try await LabSessionServer.start(lab, on: serverHost,
                                                          turn: ["turn:198.18.250.2:3478?transport=udp",
                                                                 "turn:198.18.250.2:3478?transport=tcp"],
                                                          turnSecret: "whatever-secret")
            try await Self.expectBothFail(lab, a, b, server: server, options: ["--relay"])
        }
    }

    @Test("an unreachable STUN server: gathering gives up on it and media flows over host candidates")
    func unreachableSTUN() async throws {
        try await NetworkLab.run { lab in
            let serverHost = try await lab.addHost("server")
            let a = try await lab.addHost("a"), b = try await lab.addHost("b")
            let server = try await LabSessionServer.start(lab, on: serverHost, stun: ["stun:198.18.250.2:3478"])
            let peerA = try await LabPeer.join(lab, on: a, server: server, name: "a")
            let peerB = try await LabPeer.join(lab, on: b, server: server, name: "b")
            let seenByA = try await peerA.waitForMedia(), seenByB = try await peerB.waitForMedia()
            #expect(seenByA.local == "host" && seenByB.local == "host")
            #expect(await peerA.leave() == 0)
            #expect(await peerB.leave() == 0)
        }
    }

    /// Both peers join with `options`; each one's subscription to the other must fail with 1006 within 60 s, and
    /// both must then leave and exit 0.
    static func expectBothFail(_ lab: NetworkLab, _ a: LabHost, _ b: LabHost, server: LabSessionServer,
                               options: [String]) async throws {
        let peerA = try await LabPeer.join(lab, on: a, server: server, name: "a", options: options)
        let peerB = try await LabPeer.join(lab, on: b, server: server, name: "b", options: options)
        let started = ContinuousClock.now
        for peer in [peerA, peerB] {
            let line = try await peer.process.waitForLine(timeout: .seconds(60), "\(peer.host.label) fails") {
                $0.contains("\"subscriberFailed\"") || $0.contains("\"subscriberConnected\"")
            }
            #expect(line.contains("\"subscriberFailed\"") && line.contains("\"code\":1006"), "\(peer.host.label): \(line)")
        }
        print("network lab: both subscriptions failed \(ContinuousClock.now - started) after joining")
        #expect(await peerA.leave() == 0)
        #expect(await peerB.leave() == 0)
    }
}
