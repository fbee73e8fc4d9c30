import Foundation
import Synchronization
import Testing
import TokKitCapture

/// Helpers for the generated-source, file and renderer tests: temporary files, external tools (ffmpeg,
/// ffprobe) and a consumer that records frames.
enum RendererTestKit {
    struct ToolError: Error, CustomStringConvertible {
        let description: String
    }

    /// A fresh directory under the system's temporary directory.
    static func temporaryDirectory() throws -> String {
        var template = Array((NSTemporaryDirectory() + "tokkit-render-XXXXXX").utf8CString)
        guard let dir = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw ToolError(description: "mkdtemp failed: errno \(errno)")
        }
        return String(cString: dir)
    }

    static func removeDirectory(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

    static func writeFile(_ path: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func readFile(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The absolute path of `name` on PATH. Throws (failing the test loudly) when it is not installed.
    static func tool(_ name: String) throws -> String {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for dir in dirs where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
            return "\(dir)/\(name)"
        }
        throw ToolError(description: "\(name) is not installed (needed by this test): run `bash scripts/bootstrap --tests` (Debian package ffmpeg)")
    }

    /// Runs `tool` with `arguments`; returns its standard output. Throws when it exits non-zero or runs longer
    /// than `timeout` (then it is terminated).
    static func run(_ tool: String, _ arguments: [String], timeout: TimeInterval = 30) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.tool(tool))
        process.arguments = arguments
        let out = Pipe()
        let errPath = NSTemporaryDirectory() + "tokkit-render-stderr-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: errPath) }
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        try err.close()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
            throw ToolError(description: "\(tool) \(arguments.joined(separator: " ")) failed (\(process.terminationReason == .exit ? "status \(process.terminationStatus)" : "killed after \(timeout) s")): \(stderr)")
        }
        return [UInt8](data)
    }

    /// Polls `condition` until it holds or `timeout` passes (bounded in time; 1 ms between checks).
    @discardableResult
    static func wait(timeout: Duration = .seconds(10), until condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            usleep(1000)
        }
        return condition()
    }

    /// The tightly packed rows of each plane of `frame` (padding dropped); no planes for an expired frame.
    static func tightPlanes(_ frame: VideoFrame) -> [[UInt8]] {
        let f = frame.format
        return (try? frame.withPlanes { planes in
            (0..<planes.count).map { i in
                let rowBytes: Int
                switch f.pixelFormat {
                case .i420: rowBytes = i == 0 ? f.width : (f.width + 1) / 2
                case .nv12: rowBytes = i == 0 ? f.width : ((f.width + 1) / 2) * 2
                case .argb, .bgra: rowBytes = f.width * 4
                case .yuy2: rowBytes = ((f.width + 1) / 2) * 4
                case .mjpeg: return [UInt8](planes[0])
                }
                var out: [UInt8] = []
                out.reserveCapacity(rowBytes * f.rows(inPlane: i))
                for r in 0..<f.rows(inPlane: i) {
                    out.append(contentsOf: planes[i][(r * f.bytesPerRow[i])..<(r * f.bytesPerRow[i] + rowBytes)])
                }
                return out
            }
        }) ?? []
    }

    /// An I420 frame whose planes hold a pattern that differs per `seed`, with optional row padding.
    static func patternFrame(width: Int, height: Int, seed: Int, padding: Int = 0, fps: Double = 30) throws -> VideoFrame {
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        let strides: PlaneStrides = [width + padding, cw + padding, cw + padding]
        let format = VideoFormat(
            pixelFormat: .i420, width: width, height: height, bytesPerRow: strides, estimatedFramesPerSecond: fps)
        func plane(_ w: Int, _ h: Int, _ stride: Int, _ salt: Int) -> [UInt8] {
            var p = [UInt8](repeating: 0xEE, count: stride * h)
            for y in 0..<h { for x in 0..<w { p[y * stride + x] = UInt8(truncatingIfNeeded: x &* 7 &+ y &* 13 &+ seed &* 31 &+ salt) } }
            return p
        }
        return try VideoFrame(
            format: format,
            copying: [plane(width, height, strides[0], 0), plane(cw, ch, strides[1], 85), plane(cw, ch, strides[2], 170)])
    }

    /// An I420 frame of uniform Y, U and V.
    static func uniformFrame(width: Int, height: Int, y: UInt8, u: UInt8, v: UInt8, fps: Double = 30) throws -> VideoFrame {
        let c = ((width + 1) / 2) * ((height + 1) / 2)
        return try VideoFrame(
            format: .i420(width: width, height: height, fps: fps),
            copying: [[UInt8](repeating: y, count: width * height), [UInt8](repeating: u, count: c), [UInt8](repeating: v, count: c)])
    }

    /// A consumer that records every frame (format, timestamp, optionally the tight planes) and every failure.
    final class Collector: VideoCaptureConsumer {
        struct Frame: Sendable {
            let format: VideoFormat
            let timestamp: Duration
            let planes: [[UInt8]]
            let isBorrowed: Bool
        }

        private let keepPixels: Bool
        private let state = Mutex<(frames: [Frame], failures: [VideoCaptureError])>(([], []))

        init(keepPixels: Bool = true) { self.keepPixels = keepPixels }

        func consumeFrame(_ frame: VideoFrame) {
            let planes = keepPixels ? RendererTestKit.tightPlanes(frame) : []
            let record = Frame(format: frame.format, timestamp: frame.timestamp, planes: planes, isBorrowed: frame.isBorrowed)
            state.withLock { $0.frames.append(record) }
        }

        func captureDidFail(_ error: VideoCaptureError) { state.withLock { $0.failures.append(error) } }

        var frames: [Frame] { state.withLock { $0.frames } }
        var count: Int { state.withLock { $0.frames.count } }
        var failures: [VideoCaptureError] { state.withLock { $0.failures } }
    }
}
