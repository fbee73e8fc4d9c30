import Foundation
import Testing
import TokKitNetworkLab

/// The lab itself: routing between subnets, both kinds of NAT, impairments and cleanup, checked with UDP and TCP
/// probes between hosts.
@Suite("NetworkLab")
struct NetworkLabTests {
    @Test("hosts on different subnets reach each other through the router, with their own addresses")
    func routedHosts() async throws {
        try await NetworkLab.run { lab in
            let a = try await lab.addHost("a"), b = try await lab.addHost("b")
            _ = try await LabProbe.udpEcho(lab, on: b, ports: [4000])
            let result = try await LabProbe.udpSend(lab, from: a, to: b.address, ports: [4000])
            #expect(result.received == result.sent)
            #expect(result.seen["\(b.address):4000"]?.hasPrefix("\(a.address):") == true)
            _ = try await LabProbe.tcpEcho(lab, on: a, port: 4001)
            let tcp = try await LabProbe.tcpConnect(lab, from: b, to: a.address, port: 4001)
            #expect(tcp.reply?.hasPrefix("\(b.address):") == true, "\(tcp)")
        }
    }

    @Test("a port-restricted NAT keeps one public port for every destination; the host is unreachable from outside")
    func portRestrictedNAT() async throws {
        try await NetworkLab.run { lab in
            let inside = try await lab.addHost("inside", behind: .portRestricted), outside = try await lab.addHost("b")
            #expect(inside.address != inside.publicAddress)
            _ = try await LabProbe.udpEcho(lab, on: outside, ports: [4000, 4002])
            let result = try await LabProbe.udpSend(lab, from: inside, to: outside.address, ports: [4000, 4002])
            #expect(result.received == result.sent)
            let seen = Set(result.seen.values)
            #expect(seen.count == 1, "one mapping for both destinations: \(result.seen)")
            #expect(seen.allSatisfy { $0.hasPrefix("\(inside.publicAddress):") }, "\(result.seen)")

            _ = try await LabProbe.udpEcho(lab, on: inside, ports: [4000])
            let inward = try await LabProbe.udpSend(lab, from: outside, to: inside.address, ports: [4000])
            #expect(inward.received == 0, "the inside address is not routed: \(inward)")
        }
    }

    @Test("a symmetric NAT maps each destination to a port of its own")
    func symmetricNAT() async throws {
        try await NetworkLab.run { lab in
            let inside = try await lab.addHost("inside", behind: .symmetric), outside = try await lab.addHost("b")
            _ = try await LabProbe.udpEcho(lab, on: outside, ports: [4000, 4002])
            let result = try await LabProbe.udpSend(lab, from: inside, to: outside.address, ports: [4000, 4002])
            #expect(result.received == result.sent)
            let seen = Set(result.seen.values)
            #expect(seen.count == 2, "two mappings: \(result.seen)")
            #expect(seen.allSatisfy { $0.hasPrefix("\(inside.publicAddress):") }, "\(result.seen)")
        }
    }

    @Test("blocking UDP leaves TCP through; blocking a TCP port closes only that port; a clean link restores both")
    func blockingUDPAndTCP() async throws {
        try await NetworkLab.run { lab in
            let a = try await lab.addHost("a"), b = try await lab.addHost("b")
            _ = try await LabProbe.udpEcho(lab, on: b, ports: [4000])
            _ = try await LabProbe.tcpEcho(lab, on: b, port: 4001)
            _ = try await LabProbe.tcpEcho(lab, on: b, port: 4003)
            try await lab.impair(a, Impairments(blockUDP: true, blockedTCPPorts: [4003]))
            #expect(try await LabProbe.udpSend(lab, from: a, to: b.address, ports: [4000]).received == 0)
            #expect(try await LabProbe.tcpConnect(lab, from: a, to: b.address, port: 4001).reply != nil)
            #expect(try await LabProbe.tcpConnect(lab, from: a, to: b.address, port: 4003).error != nil)
            try await lab.impair(a, Impairments())
            let clean = try await LabProbe.udpSend(lab, from: a, to: b.address, ports: [4000])
            #expect(clean.received == clean.sent)
            #expect(try await LabProbe.tcpConnect(lab, from: a, to: b.address, port: 4003).reply != nil)
        }
    }

    @Test("random drop loses about the share asked for; offline loses everything")
    func randomDropAndOffline() async throws {
        try await NetworkLab.run { lab in
            let a = try await lab.addHost("a"), b = try await lab.addHost("b")
            _ = try await LabProbe.udpEcho(lab, on: b, ports: [4000])
            // 30 % each way: about 49 % of round trips survive (0.7²). 300 probes: far outside 30–70 % only by a
            // broken rule.
            try await lab.impair(a, Impairments(dropPercent: 30))
            let lossy = try await LabProbe.udpSend(lab, from: a, to: b.address, ports: [4000], count: 300)
            #expect((90...210).contains(lossy.received), "\(lossy.received) of \(lossy.sent)")
            try await lab.impair(a, Impairments(offline: true))
            #expect(try await LabProbe.udpSend(lab, from: a, to: b.address, ports: [4000]).received == 0)
        }
    }

    @Test("a delayable host's link adds the one-way delay it is given, each way, and jitter around it")
    func delayAndJitter() async throws {
        try await NetworkLab.run { lab in
            let a = try await lab.addHost("a", delayable: true), b = try await lab.addHost("b")
            _ = try await LabProbe.udpEcho(lab, on: b, ports: [4000])
            let direct = try await LabProbe.udpRTT(lab, from: a, to: b.address, port: 4000)
            #expect(direct.count == 10 && direct.max()! < 50, "\(direct)")
            try await lab.setDelay(a, .milliseconds(60))
            let delayed = try await LabProbe.udpRTT(lab, from: a, to: b.address, port: 4000)
            // 60 ms out and 60 ms back through the relay.
            #expect(delayed.count == 10 && delayed.min()! >= 119 && delayed.max()! < 400, "\(delayed)")
            try await lab.setDelay(a, .milliseconds(60), jitter: .milliseconds(20))
            let jittery = try await LabProbe.udpRTT(lab, from: a, to: b.address, port: 4000, count: 30)
            #expect(jittery.count == 30 && jittery.min()! >= 79 && jittery.max()! < 400, "\(jittery)")
            #expect(jittery.max()! - jittery.min()! > 10, "jitter spreads the round trips: \(jittery)")
            try await lab.setDelay(a, .zero)
            let back = try await LabProbe.udpRTT(lab, from: a, to: b.address, port: 4000)
            #expect(back.count == 10 && back.max()! < 50, "\(back)")
        }
    }

    @Test("a bandwidth cap installs a token bucket on both ends of the host's link, and a clean link removes it")
    func bandwidthCap() async throws {
        try await NetworkLab.run { lab in
            let a = try await lab.addHost("a")
            try await lab.impair(a, Impairments(bandwidthKbit: 500))
            let router = try await Command.run(["/usr/sbin/tc", "-n", lab.router, "qdisc", "show", "dev", "h1"])
            let host = try await lab.run(on: a, ["/usr/sbin/tc", "qdisc", "show", "dev", "eth0"])
            #expect(router.contains("tbf") && router.contains("500Kbit"), "\(router)")
            #expect(host.contains("tbf") && host.contains("500Kbit"), "\(host)")
            try await lab.impair(a, Impairments())
            let cleared = try await lab.run(on: a, ["/usr/sbin/tc", "qdisc", "show", "dev", "eth0"])
            #expect(!cleared.contains("tbf"), "\(cleared)")
        }
    }

    @Test("closing the lab stops its processes and deletes its namespaces and the test process's link")
    func closeCleansUp() async throws {
        let lab = try await NetworkLab.start()
        let a = try await lab.addHost("a", behind: .symmetric)
        let echo = try await LabProbe.udpEcho(lab, on: a, ports: [4000])
        #expect(try await namespaces().contains { $0.hasPrefix(lab.name) })
        await lab.close()
        #expect(!echo.isRunning)
        let left = try await namespaces().filter { $0.hasPrefix(lab.name) }
        #expect(left.isEmpty, "\(left)")
        #expect(!(try await Command.run(["/usr/sbin/ip", "-o", "addr"])).contains(lab.testAddress))
    }

    private func namespaces() async throws -> [String] {
        try await Command.run(["/usr/sbin/ip", "netns", "list"]).split(whereSeparator: \.isNewline)
            .map { String($0.split(separator: " ").first ?? "") }
    }
}
