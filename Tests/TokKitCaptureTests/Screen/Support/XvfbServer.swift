import CX11
import Foundation

/// A private Xvfb for one test: a free display number, a bounded wait until it accepts clients, killed on
/// ``stop()`` or deinit. A missing Xvfb binary is an error, never a skip.
final class XvfbServer: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let display: String
    let width: Int, height: Int
    /// A connection to the server, opened to prove it is ready and kept for drawing (until ``closeClient()``).
    var client: XDrawingClient { openClient! }
    private var openClient: XDrawingClient?
    private let process: Process

    /// Starts `Xvfb :N -screen 0 WxHx24 -nolisten tcp` plus `arguments` (default `-noreset`, so the screen
    /// survives clients disconnecting).
    init(width: Int = 320, height: Int = 240, arguments: [String] = ["-noreset"]) throws {
        let binary = "/usr/bin/Xvfb"
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw Failure(description: "\(binary) not found: install the xvfb package (scripts/bootstrap --tests)")
        }
        self.width = width
        self.height = height
        var lastError = "no attempt"
        for _ in 0..<8 {
            let n = Int.random(in: 200..<2000)
            guard !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(n)"),
                  !FileManager.default.fileExists(atPath: "/tmp/.X\(n)-lock") else { continue }
            let p = Process()
            p.executableURL = URL(fileURLWithPath: binary)
            p.arguments = [":\(n)", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp"] + arguments
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            var opened: XDrawingClient?
            _ = Self.waitUntil(timeout: .seconds(10)) {
                if !p.isRunning { return true }
                guard FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(n)") else { return false }
                opened = XDrawingClient(display: ":\(n)")
                return opened != nil
            }
            if let opened {
                display = ":\(n)"
                openClient = opened
                process = p
                return
            }
            lastError = p.isRunning ? "Xvfb :\(n) not ready after 10 s" : "Xvfb :\(n) exited (\(p.terminationStatus))"
            if p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }
        }
        throw Failure(description: "could not start Xvfb: \(lastError)")
    }

    deinit { stop() }

    var isRunning: Bool { process.isRunning }

    /// Disconnects the test's own client.
    func closeClient() { openClient = nil }

    /// Terminates the server (SIGTERM, then SIGKILL after 5 s) and waits for it.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        if !Self.waitUntil(timeout: .seconds(5), { !process.isRunning }) {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
    }

    /// Kills the server at once, as a crash would.
    func crash() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Polls `condition` every 5 ms until it holds or `timeout` passes; returns whether it held.
    @discardableResult
    static func waitUntil(timeout: Duration = .seconds(10), _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            usleep(5_000)
        }
        return condition()
    }
}
