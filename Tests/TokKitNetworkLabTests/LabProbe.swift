import Foundation
import TokKitNetworkLab

/// Small UDP/TCP probes run in lab hosts (Python's standard library: `python3` is in bootstrap's test packages).
/// Each prints one JSON line, so a test can see what got through and from which address it appeared to come.
enum LabProbe {
    static let python = "/usr/bin/python3"

    static let script = #"""
import json, selectors, socket, sys, time
mode = sys.argv[1]
if mode == "udp-echo":            # udp-echo PORT...: answer every datagram with the sender's address as seen here
    sel = selectors.DefaultSelector()
    for p in sys.argv[2:]:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("0.0.0.0", int(p)))
        sel.register(s, selectors.EVENT_READ)
    print(json.dumps({"ready": True}), flush=True)
    while True:
        for key, _ in sel.select():
            data, addr = key.fileobj.recvfrom(2048)
            key.fileobj.sendto(("%s:%d" % addr).encode(), addr)
elif mode == "udp-send":          # udp-send HOST PORT[,PORT] COUNT: one socket, COUNT datagrams to each port
    host, ports, count = sys.argv[2], [int(p) for p in sys.argv[3].split(",")], int(sys.argv[4])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.setblocking(False)
    seen, received = {}, 0
    def drain():
        global received
        while True:
            try: data, addr = s.recvfrom(2048)
            except BlockingIOError: return
            received += 1; seen["%s:%d" % addr] = data.decode()
    for port in ports:
        for i in range(count):
            try: s.sendto(b"probe", (host, port))
            except OSError: pass
            time.sleep(0.002); drain()
    end = time.time() + 1.0
    while time.time() < end: time.sleep(0.02); drain()
    print(json.dumps({"sent": count * len(ports), "received": received, "seen": seen}), flush=True)
elif mode == "udp-rtt":           # udp-rtt HOST PORT COUNT: round trips one at a time, in milliseconds
    host, port, count = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(2.0)
    rtts = []
    for i in range(count):
        start = time.monotonic(); s.sendto(b"rtt", (host, port))
        try: s.recvfrom(2048); rtts.append((time.monotonic() - start) * 1000)
        except socket.timeout: pass
    print(json.dumps({"rtts": rtts}), flush=True)
elif mode == "tcp-echo":          # tcp-echo PORT: tell every client its address, then close
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0", int(sys.argv[2])))
    s.listen(8); print(json.dumps({"ready": True}), flush=True)
    while True:
        c, addr = s.accept(); c.sendall(("%s:%d" % addr).encode()); c.close()
elif mode == "tcp-connect":       # tcp-connect HOST PORT: what the server said, or the error
    try:
        c = socket.create_connection((sys.argv[2], int(sys.argv[3])), timeout=2); print(json.dumps({"reply": c.recv(256).decode()}))
    except OSError as e:
        print(json.dumps({"error": str(e)}))
"""#

    /// The script, written once per test process.
    static let path: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tokkit-lab-probe-\(getpid()).py").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(script.utf8))
        return path
    }()

    /// Starts a UDP echo server on `ports` in `host` and waits until it listens.
    static func udpEcho(_ lab: NetworkLab, on host: LabHost, ports: [Int]) async throws -> LabProcess {
        let process = try lab.spawn(on: host, [python, path, "udp-echo"] + ports.map(String.init))
        _ = try await process.waitForLine(timeout: .seconds(10), "udp echo ready") { $0.contains("ready") }
        return process
    }

    /// Starts a TCP echo server on `port` in `host` and waits until it listens.
    static func tcpEcho(_ lab: NetworkLab, on host: LabHost, port: Int) async throws -> LabProcess {
        let process = try lab.spawn(on: host, [python, path, "tcp-echo", String(port)])
        _ = try await process.waitForLine(timeout: .seconds(10), "tcp echo ready") { $0.contains("ready") }
        return process
    }

    struct UDPResult: Decodable {
        var sent: Int
        var received: Int
        /// Echo server address → the sender's address as that server saw it.
        var seen: [String: String]
    }

    /// Sends `count` datagrams from one socket in `host` to each of `ports` on `address`.
    static func udpSend(_ lab: NetworkLab, from host: LabHost, to address: String, ports: [Int], count: Int = 5)
        async throws -> UDPResult {
        let out = try await lab.run(on: host, [python, path, "udp-send", address,
                                               ports.map(String.init).joined(separator: ","), String(count)])
        return try JSONDecoder().decode(UDPResult.self, from: Data(out.utf8))
    }

    /// Round-trip times (ms) of `count` datagrams sent one at a time from `host` to a UDP echo.
    static func udpRTT(_ lab: NetworkLab, from host: LabHost, to address: String, port: Int, count: Int = 10)
        async throws -> [Double] {
        struct Result: Decodable { var rtts: [Double] }
        let out = try await lab.run(on: host, [python, path, "udp-rtt", address, String(port), String(count)])
        return try JSONDecoder().decode(Result.self, from: Data(out.utf8)).rtts
    }

    struct TCPResult: Decodable {
        var reply: String?
        var error: String?
    }

    /// Connects from `host` to `address:port` and returns what the TCP echo said (or the error).
    static func tcpConnect(_ lab: NetworkLab, from host: LabHost, to address: String, port: Int) async throws
        -> TCPResult {
        let out = try await lab.run(on: host, [python, path, "tcp-connect", address, String(port)])
        return try JSONDecoder().decode(TCPResult.self, from: Data(out.utf8))
    }
}
