import Foundation
import TokKitChromiumSupport
import Synchronization

/// A network of hosts made of network namespaces, for tests of media between machines. Usable from any test.
///
/// Layout: a router namespace with IP forwarding; each host (``addHost(_:behind:)``) is a namespace joined to the
/// router by a veth pair on a /24 of its own (198.18.n.0/24), or sits behind a NAT gateway namespace (nftables
/// masquerade) on 198.19.n.0/24. The test process itself is attached as 198.18.0.2 (router 198.18.0.1) with a
/// route to 198.18.0.0/15 only, so it can reach the hosts' servers; nothing is bridged to the machine's own
/// interfaces and the lab has no route out, so no lab packet can leave it. Impairments (``impair(_:_:)``): UDP or
/// TCP ports blocked, random loss, bandwidth caps, a host going offline.
///
/// The lab refuses to attach to a namespace with any interface but `lo` (the machine's own, say): tests run inside
/// `unshare -n` (as `scripts/test` does). Names carry the process id, so concurrent test runs never collide, and a lab left behind
/// by a killed run is removed by the next one. One lab is open at a time in a process (``start()`` waits for the
/// previous one to close). ``close()`` stops every process it started and deletes every
/// namespace; ``run(_:)`` closes it whatever the body does.
///
/// Threading: any method from any task; configuration runs `ip`/`nft`/`tc` as child processes and awaits them
/// without blocking a thread.
public final class NetworkLab: Sendable {
    /// How a NAT gateway maps a host's flows.
    public enum NAT: String, Sendable, Hashable {
        /// One public port per host port, whoever it talks to; replies only from where it sent (Linux's masquerade
        /// keeps the mapping endpoint-independent and conntrack filters by address and port). STUN works.
        case portRestricted = "port-restricted"
        /// A new random public port for every destination (masquerade `fully-random`): the port STUN sees is
        /// useless to anyone else, and only TURN, or a peer's own reflexive candidate, gets through.
        case symmetric
    }

    /// Hosts per lab (subnets 198.18.1–200.0/24).
    public static let maximumHosts = 200
    static let ip = "/usr/sbin/ip"
    static let nft = "/usr/sbin/nft"
    static let tc = "/usr/sbin/tc"
    static let prefix = "tkl"
    private static let counter = Atomic<Int>(0)

    /// The namespace name prefix of this lab (`tkl<pid>x<n>`).
    public let name: String
    /// The test process's address in the lab.
    public let testAddress = "198.18.0.2"
    /// The router's namespace.
    public var router: String { name + "r" }
    /// The test process's end of its link to the router.
    let testInterface: String

    private struct State {
        var hosts: [LabHost] = []
        var processes: [LabProcess] = []
        /// Delay relays by host index.
        var relays: [Int: LabProcess] = [:]
        var namespaces: [String] = []
        var closed = false
    }
    private let state = Mutex(State())

    private init(name: String, testInterface: String) {
        self.name = name
        self.testInterface = testInterface
    }

    /// Builds the router and attaches the test process; removes labs left behind by dead processes first.
    public static func start() async throws(LabError) -> NetworkLab {
        for tool in [ip, nft, tc] where !FileManager.default.isExecutableFile(atPath: tool) { throw .toolMissing(tool) }
        let foreign = networkInterfaces().filter { $0 != "lo" && !$0.hasPrefix(prefix) }
        guard foreign.isEmpty else { throw .notInPrivateNamespace(interfaces: foreign) }
        try await LabTurn.shared.acquire()
        await removeStaleLabs()
        let n = counter.add(1, ordering: .relaxed).newValue
        let lab = NetworkLab(name: "\(prefix)\(getpid())x\(n)", testInterface: "\(prefix)\(n)")
        do {
            try await lab.addNamespace(lab.router)
            try await lab.sysctl(lab.router, "net.ipv4.ip_forward=1")
            try await lab.nftables(lab.router, """
                table inet lab {
                    chain forward { type filter hook forward priority 0; policy accept; }
                }
                """)
            try await Command.run([ip, "link", "add", lab.testInterface, "type", "veth", "peer", "name", "t0",
                                   "netns", lab.router])
            try await Command.run([ip, "addr", "add", "\(lab.testAddress)/24", "dev", lab.testInterface])
            try await Command.run([ip, "link", "set", lab.testInterface, "up"])
            try await Command.run([ip, "-n", lab.router, "addr", "add", "198.18.0.1/24", "dev", "t0"])
            try await Command.run([ip, "-n", lab.router, "link", "set", "t0", "up"])
            try await Command.run([ip, "route", "add", "198.18.0.0/15", "via", "198.18.0.1"])
        } catch {
            await lab.close()
            throw error
        }
        return lab
    }

    /// Starts a lab, runs `body`, and closes the lab whether `body` returned or threw.
    public static func run<T: Sendable>(_ body: (NetworkLab) async throws -> T) async throws -> T {
        let lab = try await start()
        do {
            let result = try await body(lab)
            await lab.close()
            return result
        } catch {
            await lab.close()
            throw error
        }
    }

    /// The hosts added so far.
    public var hosts: [LabHost] { state.withLock { $0.hosts } }

    /// Adds a host named `label` (for messages), routed to every other, optionally behind a NAT of its own, and
    /// with `delayable`, with its link through a delay relay (``setDelay(_:_:jitter:)``).
    public func addHost(_ label: String, behind nat: NAT? = nil, delayable: Bool = false) async throws(LabError)
        -> LabHost {
        let index = try state.withLock { s throws(LabError) -> Int in
            guard s.hosts.count < Self.maximumHosts else { throw .tooManyHosts }
            return s.hosts.count + 1
        }
        let host = LabHost(label: label, index: index, namespace: "\(name)h\(index)", nat: nat, delayable: delayable)
        let link = "198.18.\(index)"
        let ip = Self.ip
        try await addNamespace(host.namespace)
        if nat != nil { try await addNamespace(host.gatewayNamespace) }
        if delayable {
            // router hN ↔ relay ra … relay rb ↔ host (or gateway) eth0; the relay forwards frames between ra and rb.
            try await addNamespace(host.relayNamespace)
            try await Command.run([ip, "-n", router, "link", "add", "name", host.routerInterface, "type", "veth",
                                   "peer", "name", "ra", "netns", host.relayNamespace])
            try await Command.run([ip, "-n", host.relayNamespace, "link", "add", "name", "rb", "type", "veth", "peer",
                                   "name", "eth0", "netns", host.uplinkNamespace])
            for end in ["ra", "rb"] {
                try await sysctl(host.relayNamespace, "net.ipv6.conf.\(end).disable_ipv6=1")
                try await Command.run([ip, "-n", host.relayNamespace, "link", "set", end, "promisc", "on", "up"])
            }
            for (namespace, devices) in [(router, [host.routerInterface]), (host.relayNamespace, ["ra", "rb"]),
                                         (host.uplinkNamespace, ["eth0"])] {
                try await Command.run([ip, "netns", "exec", namespace, DelayRelay.python, DelayRelay.offloadPath]
                                      + devices)
            }
            let relay = try spawn(in: host.relayNamespace, [DelayRelay.python, DelayRelay.path, "ra", "rb"])
            _ = try await relay.waitForLine(timeout: .seconds(10), "delay relay ready") { $0 == "ready" }
            state.withLock { $0.relays[host.index] = relay }
        } else {
            try await Command.run([ip, "-n", router, "link", "add", host.routerInterface, "type", "veth", "peer",
                                   "name", "eth0", "netns", host.uplinkNamespace])
        }
        try await Command.run([ip, "-n", router, "addr", "add", "\(link).1/24", "dev", host.routerInterface])
        try await Command.run([ip, "-n", router, "link", "set", host.routerInterface, "up"])
        try await Command.run([ip, "-n", host.uplinkNamespace, "addr", "add", "\(link).2/24", "dev", "eth0"])
        try await Command.run([ip, "-n", host.uplinkNamespace, "link", "set", "eth0", "up"])
        try await Command.run([ip, "-n", host.uplinkNamespace, "route", "add", "default", "via", "\(link).1"])
        if let nat {
            // The gateway: eth0 towards the router, eth1 towards the host, masquerading the host's flows.
            let inner = "198.19.\(index)"
            try await Command.run([ip, "-n", host.gatewayNamespace, "link", "add", "eth1", "type", "veth", "peer",
                                   "name", "eth0", "netns", host.namespace])
            try await Command.run([ip, "-n", host.gatewayNamespace, "addr", "add", "\(inner).1/24", "dev", "eth1"])
            try await Command.run([ip, "-n", host.gatewayNamespace, "link", "set", "eth1", "up"])
            try await Command.run([ip, "-n", host.namespace, "addr", "add", "\(inner).2/24", "dev", "eth0"])
            try await Command.run([ip, "-n", host.namespace, "link", "set", "eth0", "up"])
            try await Command.run([ip, "-n", host.namespace, "route", "add", "default", "via", "\(inner).1"])
            try await sysctl(host.gatewayNamespace, "net.ipv4.ip_forward=1")
            let masquerade = nat == .symmetric ? "masquerade fully-random" : "masquerade"
            try await nftables(host.gatewayNamespace, """
                table ip nat {
                    chain postrouting {
                        type nat hook postrouting priority srcnat; policy accept;
                        oifname "eth0" ip saddr \(inner).0/24 \(masquerade)
                    }
                }
                """)
        }
        try await nftables(router, """
            add chain inet lab \(host.routerInterface)
            add rule inet lab forward iifname "\(host.routerInterface)" jump \(host.routerInterface)
            add rule inet lab forward oifname "\(host.routerInterface)" jump \(host.routerInterface)
            """)
        state.withLock { $0.hosts.append(host) }
        return host
    }

    /// Moves `host` to the next address of its subnet (198.18.n.2 → .3, or 198.19.n.2 → .3 behind NAT), as a
    /// machine that changed networks: the old address is removed (with every socket's path through it), the new
    /// one added with the default route. Returns the host with its new address.
    public func changeAddress(of host: LabHost) async throws(LabError) -> LabHost {
        guard host.hostNumber < 250 else { throw .tooManyHosts }
        let moved = LabHost(label: host.label, index: host.index, namespace: host.namespace, nat: host.nat,
                            hostNumber: host.hostNumber + 1)
        let gateway = host.nat == nil ? "198.18.\(host.index).1" : "198.19.\(host.index).1"
        let ip = Self.ip, ns = host.namespace
        try await Command.run([ip, "-n", ns, "addr", "del", "\(host.address)/24", "dev", "eth0"])
        try await Command.run([ip, "-n", ns, "addr", "add", "\(moved.address)/24", "dev", "eth0"])
        try await Command.run([ip, "-n", ns, "route", "replace", "default", "via", gateway])
        state.withLock { s in
            if let i = s.hosts.firstIndex(where: { $0.index == host.index }) { s.hosts[i] = moved }
        }
        return moved
    }

    /// Delays every frame on `host`'s link by `delay` each way, plus a uniform jitter of ± `jitter` (order kept);
    /// `.zero` for none. The host must have been added `delayable`. The round-trip time between two delayed hosts
    /// grows by twice each one's delay.
    public func setDelay(_ host: LabHost, _ delay: Duration, jitter: Duration = .zero) async throws(LabError) {
        guard let relay = state.withLock({ $0.relays[host.index] }) else {
            throw .launchFailed("\(host.label) was not added delayable")
        }
        let ms = { (d: Duration) in Double(d.components.seconds) * 1_000 + Double(d.components.attoseconds) / 1e15 }
        relay.write("\(ms(delay)) \(ms(jitter))\n")
    }

    /// Replaces what is done to `host`'s traffic (see ``Impairments``); `Impairments()` restores a clean link.
    public func impair(_ host: LabHost, _ impairments: Impairments) async throws(LabError) {
        let chain = host.routerInterface
        let rules = impairments.rules.map { "add rule inet lab \(chain) \($0)" }
        try await nftables(router, (["flush chain inet lab \(chain)"] + rules).joined(separator: "\n"))
        for (namespace, device) in [(router, host.routerInterface), (host.uplinkNamespace, "eth0")] {
            if let kbit = impairments.bandwidthKbit {
                // A burst of about 20 ms at the rate (at least a few full-size packets); a queue of 100 ms.
                let burst = max(kbit * 1_000 / 8 / 50, 4_500)
                try await Command.run([Self.tc, "-n", namespace, "qdisc", "replace", "dev", device, "root", "tbf",
                                       "rate", "\(max(kbit, 8))kbit", "burst", "\(burst)", "latency", "100ms"])
            } else {
                _ = try? await Command.run([Self.tc, "-n", namespace, "qdisc", "del", "dev", device, "root"])
            }
        }
    }

    /// Starts `argv` (first element an absolute path) in `host`; the lab stops it when it closes if it has not
    /// exited by then.
    public func spawn(on host: LabHost, _ argv: [String], environment: [String: String] = [:])
        throws(LabError) -> LabProcess {
        try spawn(in: host.namespace, argv, environment: environment)
    }

    private func spawn(in namespace: String, _ argv: [String], environment: [String: String] = [:])
        throws(LabError) -> LabProcess {
        guard let executable = argv.first, FileManager.default.isExecutableFile(atPath: executable) else {
            throw .toolMissing(argv.first ?? "(empty command)")
        }
        let process = try LabProcess(namespace: namespace, argv: argv, environment: environment)
        state.withLock { $0.processes.append(process) }
        return process
    }

    /// Runs a short command in `host` and returns its stdout (throws on failure).
    @discardableResult
    public func run(on host: LabHost, _ argv: [String], input: String? = nil) async throws(LabError) -> String {
        try await Command.run([Self.ip, "netns", "exec", host.namespace] + argv, input: input)
    }

    /// Stops every process the lab started (stdin closed, SIGTERM after half a second: a test that wants a graceful
    /// exit stops its processes itself first), kills anything else left in its namespaces, deletes them
    /// (which removes their links) and the test process's link. Idempotent.
    public func close() async {
        let taken = state.withLock { s -> ([LabProcess], [String])? in
            if s.closed { return nil }
            s.closed = true
            return (s.processes, s.namespaces)
        }
        guard let (processes, namespaces) = taken else { return }
        for process in processes { await process.stop(grace: .milliseconds(500)) }
        for namespace in namespaces.reversed() { await Self.deleteNamespace(namespace) }
        _ = try? await Command.run([Self.ip, "link", "del", testInterface])
        LabTurn.shared.release()
    }

    // MARK: Helpers

    private func addNamespace(_ namespace: String) async throws(LabError) {
        try await Command.run([Self.ip, "netns", "add", namespace])
        state.withLock { $0.namespaces.append(namespace) }
        try await Command.run([Self.ip, "-n", namespace, "link", "set", "lo", "up"])
    }

    private func sysctl(_ namespace: String, _ setting: String) async throws(LabError) {
        let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return }
        let path = "/proc/sys/" + parts[0].replacingOccurrences(of: ".", with: "/")
        try await Command.run([Self.ip, "netns", "exec", namespace, "/bin/sh", "-c", "echo \(parts[1]) > \(path)"])
    }

    private func nftables(_ namespace: String, _ script: String) async throws(LabError) {
        try await Command.run([Self.ip, "netns", "exec", namespace, Self.nft, "-f", "-"], input: script + "\n")
    }

    /// Kills whatever still runs in `namespace` and deletes it.
    private static func deleteNamespace(_ namespace: String) async {
        if let pids = try? await Command.run([ip, "netns", "pids", namespace]) {
            for pid in pids.split(whereSeparator: \.isNewline).compactMap({ Int32($0) }) { kill(pid, SIGKILL) }
        }
        _ = try? await Command.run([ip, "netns", "del", namespace])
    }

    /// Deletes the namespaces of labs whose process is gone (a run killed before it could close its lab).
    private static func removeStaleLabs() async {
        guard let list = try? await Command.run([ip, "netns", "list"]) else { return }
        for line in list.split(whereSeparator: \.isNewline) {
            let name = String(line.split(separator: " ").first ?? "")
            guard name.hasPrefix(prefix),
                  let pid = Int32(name.dropFirst(prefix.count).prefix(while: \.isNumber)),
                  pid != getpid(), kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            await deleteNamespace(name)
        }
    }

    /// Whether this process's namespace has interfaces besides `lo` and labs' links (so ``start()`` would refuse):
    /// a program can re-execute itself under `unshare -n` then.
    public static var needsPrivateNamespace: Bool {
        !networkInterfaces().allSatisfy { $0 == "lo" || $0.hasPrefix(prefix) }
    }

    /// For a benchmark's `main`: when ``needsPrivateNamespace``, re-executes this program with its arguments under
    /// `unshare -n` (with `lo` up) and does not return; prints why and exits 1 when it cannot (root is needed).
    /// `TOKKIT_BENCH_UNSHARED` marks the re-executed process, so it never loops. Call before any thread starts.
    public static func reexecuteInPrivateNamespaceIfNeeded(program: String) {
        guard needsPrivateNamespace, ProcessInfo.processInfo.environment["TOKKIT_BENCH_UNSHARED"] == nil else { return }
        setenv("TOKKIT_BENCH_UNSHARED", "1", 1)
        let argv = ["/usr/bin/unshare", "-n", "/bin/sh", "-c", "ip link set lo up && exec \"$0\" \"$@\""]
            + CommandLine.arguments
        let cArgs = argv.map { strdup($0) } + [nil]
        execv(argv[0], cArgs)
        print("\(program): cannot re-execute under unshare -n (root needed): \(String(cString: strerror(errno)))")
        exit(1)
    }

    /// The interfaces of this process's network namespace. The lab attaches a link only to a namespace that holds
    /// nothing but `lo` and other labs' links: one `unshare -n` made.
    static func networkInterfaces() -> [String] { TokKitChromiumSupport.networkInterfaces() }
}
