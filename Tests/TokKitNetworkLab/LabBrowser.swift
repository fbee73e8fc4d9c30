import Foundation
import TokKitChromiumSupport

/// Headless Chromium running in a lab host, so its WebRTC gathers that host's addresses, driven over DevTools
/// from the test process.
///
/// Chromium serves DevTools on its own 127.0.0.1 only (it ignores `--remote-debugging-address`), here on port
/// ``devToolsPort`` of the host's namespace; a small TCP forwarder in the host (Python's standard library) makes
/// it reachable at the host's address, port ``forwardedPort``, from the test process's end of the lab.
public enum LabBrowser {
    public static let devToolsPort = 9222
    public static let forwardedPort = 9223
    static let python = "/usr/bin/python3"

    static let forwarder = #"""
import socket, sys, threading
listen_host, listen_port, target_port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def pump(a, b):
    try:
        while True:
            data = a.recv(65536)
            if not data: break
            b.sendall(data)
    except OSError: pass
    for s in (a, b):
        try: s.shutdown(socket.SHUT_RDWR)
        except OSError: pass
server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind((listen_host, listen_port)); server.listen(16)
print("ready", flush=True)
while True:
    client, _ = server.accept()
    try: upstream = socket.create_connection(("127.0.0.1", target_port), timeout=5)
    except OSError:
        client.close(); continue
    upstream.settimeout(None)
    threading.Thread(target=pump, args=(client, upstream), daemon=True).start()
    threading.Thread(target=pump, args=(upstream, client), daemon=True).start()
"""#

    /// Starts the forwarder and Chromium in `host`; the lab stops the forwarder, the caller closes the browser
    /// (``Chromium/close(within:)``, or use ``run(in:on:secureOrigins:_:)``). Pages from `secureOrigins` (e.g. the
    /// lab's session server, `http://198.18.1.2:8080`) count as secure contexts, as `localhost` does, so that
    /// they may use the camera and microphone.
    public static func launch(in lab: NetworkLab, on host: LabHost, secureOrigins: [String] = []) async throws
        -> Chromium {
        guard FileManager.default.isExecutableFile(atPath: python) else { throw LabError.toolMissing(python) }
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("tokkit-lab-forward-\(getpid()).py")
        try Data(forwarder.utf8).write(to: script)
        let forward = try lab.spawn(on: host, [python, script.path, host.address, String(forwardedPort),
                                               String(devToolsPort)])
        _ = try await forward.waitForLine(timeout: .seconds(10), "DevTools forwarder ready") { $0 == "ready" }
        let local = "ws://127.0.0.1:\(devToolsPort)/", reachable = "ws://\(host.address):\(forwardedPort)/"
        return try await Chromium.launch(
            arguments: ["--remote-debugging-port=\(devToolsPort)", "--remote-allow-origins=*"]
                + (secureOrigins.isEmpty ? [] : ["--unsafely-treat-insecure-origin-as-secure="
                    + secureOrigins.joined(separator: ",")]),
            launcher: [NetworkLab.ip, "netns", "exec", host.namespace],
            devToolsURL: { $0.replacingOccurrences(of: local, with: reachable) })
    }

    /// Launches Chromium in `host`, runs `body`, and closes the browser whether `body` returned or threw.
    public static func run<T: Sendable>(in lab: NetworkLab, on host: LabHost, secureOrigins: [String] = [],
                                        _ body: (Chromium) async throws -> T) async throws -> T {
        let browser = try await launch(in: lab, on: host, secureOrigins: secureOrigins)
        do {
            let result = try await body(browser)
            await browser.close()
            return result
        } catch {
            await browser.close()
            throw error
        }
    }
}
