import Foundation
import Testing

/// ffmpeg and ffprobe, run as child processes. A missing tool is an error (the test fails), never a skip.
enum MediaTools {
    struct Missing: Error, CustomStringConvertible {
        let name: String
        var description: String { "\(name) is not installed (scripts/bootstrap --tests installs ffmpeg)" }
    }

    struct Result {
        var status: Int32
        var stdout: Data
        var stderr: String
    }

    static func path(_ name: String) throws -> String {
        for directory in ["/usr/bin", "/usr/local/bin"] {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw Missing(name: name)
    }

    /// Runs `name` with `arguments`; stdout and stderr go through temporary files (no pipe can fill up).
    static func run(_ name: String, _ arguments: [String]) throws -> Result {
        let executable = try path(name)
        let directory = FileManager.default.temporaryDirectory
        let out = directory.appendingPathComponent("tk-rec-\(UUID().uuidString).out")
        let err = directory.appendingPathComponent("tk-rec-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: try Data(contentsOf: out),
                      stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }

    /// What ffprobe says about a file: streams (codec, type, size, packets, decoded frames) and duration.
    struct Probe {
        struct Stream {
            var codecName: String
            var codecType: String
            var width: Int?
            var height: Int?
            var packets: Int?
            var frames: Int?
        }
        var streams: [Stream]
        var duration: Double?

        var video: Stream? { streams.first { $0.codecType == "video" } }
        var audio: Stream? { streams.first { $0.codecType == "audio" } }
    }

    /// ffprobe with packets counted and every frame decoded.
    static func probe(_ file: String) throws -> Probe {
        let result = try run("ffprobe", ["-v", "error", "-count_packets", "-count_frames", "-show_entries",
                                         "stream=codec_name,codec_type,width,height,nb_read_packets,nb_read_frames:format=duration",
                                         "-of", "json", file])
        #expect(result.status == 0, "ffprobe: \(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let streams = (json["streams"] as? [[String: Any]] ?? []).map { s in
            Probe.Stream(codecName: s["codec_name"] as? String ?? "", codecType: s["codec_type"] as? String ?? "",
                         width: s["width"] as? Int, height: s["height"] as? Int,
                         packets: (s["nb_read_packets"] as? String).flatMap(Int.init),
                         frames: (s["nb_read_frames"] as? String).flatMap(Int.init))
        }
        let duration = ((json["format"] as? [String: Any])?["duration"] as? String).flatMap(Double.init)
        return Probe(streams: streams, duration: duration)
    }

    /// `ffmpeg -v error -i file -f null -`: decodes everything; returns the exit status and what it printed.
    static func decode(_ file: String) throws -> Result {
        // Frames keep their own times, in the file's millisecond time base (`passthrough`, `-enc_time_base -1`):
        // by default ffmpeg moves them onto the grid of a frame rate it guesses, where irregular capture times
        // collide ("non monotonically increasing dts"), a complaint about its conversion, not about the file.
        try run("ffmpeg", ["-nostdin", "-v", "error", "-i", file, "-fps_mode", "passthrough", "-enc_time_base", "-1",
                           "-f", "null", "-"])
    }

    /// Every `every`-th decoded video frame (n = 0, every, 2 every, ...) as 8-bit luma planes, exactly as decoded
    /// (raw I420, Y plane kept: `-pix_fmt gray` would stretch limited-range luma to full range).
    static func lumaFrames(_ file: String, width: Int, height: Int, every: Int) throws -> [[UInt8]] {
        let result = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", file, "-an",
                                        "-vf", "select=not(mod(n\\,\(every)))", "-fps_mode", "passthrough",
                                        "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
        #expect(result.status == 0 && result.stderr.isEmpty, "ffmpeg: \(result.stderr)")
        let size = width * height, frameSize = size * 3 / 2
        let bytes = [UInt8](result.stdout)
        #expect(bytes.count % frameSize == 0, "whole frames")
        return stride(from: 0, to: bytes.count - frameSize + 1, by: frameSize).map { Array(bytes[$0..<($0 + size)]) }
    }

    /// A fresh temporary directory, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tk-rec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
