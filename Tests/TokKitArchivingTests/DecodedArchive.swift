import Foundation
import Testing

/// An archive decoded back by ffmpeg and ffprobe (run for real; a missing tool fails the test): raw I420 pictures at
/// chosen times, every picture's luma plane and time, the whole audio track as 48 kHz mono samples, and tone
/// measurement on them.
enum DecodedArchive {
    /// A colour in limited-range BT.601 YUV.
    struct YUV: CustomStringConvertible {
        var y: Int, u: Int, v: Int
        static let black = YUV(y: 16, u: 128, v: 128)
        static let red = YUV(y: 81, u: 90, v: 240)
        static let blue = YUV(y: 41, u: 240, v: 110)
        static let green = YUV(y: 145, u: 54, v: 34)

        /// Whether every component is within `tolerance` of `other`'s (lossy coding moves them a little).
        func isClose(to other: YUV, tolerance: Int = 24) -> Bool {
            abs(y - other.y) <= tolerance && abs(u - other.u) <= tolerance && abs(v - other.v) <= tolerance
        }
        var description: String { "YUV(\(y), \(u), \(v))" }
        /// The colour as a capturer takes it.
        var bytes: (y: UInt8, u: UInt8, v: UInt8) { (UInt8(y), UInt8(u), UInt8(v)) }
    }

    /// One decoded picture, I420, tightly packed.
    struct Picture {
        var width: Int, height: Int
        var bytes: [UInt8]

        /// The colour at (`x`, `y`).
        func colour(x: Int, y: Int) -> YUV {
            let luma = width * height, chromaWidth = width / 2
            let c = (y / 2) * chromaWidth + x / 2
            return YUV(y: Int(bytes[y * width + x]), u: Int(bytes[luma + c]), v: Int(bytes[luma + luma / 4 + c]))
        }
    }

    /// The picture shown at `seconds` (ffmpeg seeks exactly: it decodes from the key frame before).
    static func picture(_ path: String, at seconds: Double, width: Int, height: Int) throws -> Picture {
        let data = try run(["-nostdin", "-v", "error", "-ss", String(format: "%.3f", seconds), "-i", path,
                            "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
        try #require(data.count == width * height * 3 / 2, "picture at \(seconds) s: \(data.count) bytes")
        return Picture(width: width, height: height, bytes: [UInt8](data))
    }

    /// Every picture's luma plane, in decoding order, each exactly as decoded (frames keep their own times: no
    /// frame is repeated or dropped to fit a frame rate).
    static func lumaPlanes(_ path: String, width: Int, height: Int) throws -> [[UInt8]] {
        let data = try run(["-nostdin", "-v", "error", "-i", path, "-an", "-fps_mode", "passthrough",
                            "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
        let luma = width * height, frame = luma * 3 / 2
        try #require(data.count % frame == 0, "whole \(width)x\(height) pictures: \(data.count) bytes")
        let bytes = [UInt8](data)
        return stride(from: 0, to: bytes.count, by: frame).map { Array(bytes[$0..<($0 + luma)]) }
    }

    /// The time in seconds of every video frame, in decoding order (the order of ``lumaPlanes(_:width:height:)``).
    static func videoFrameTimes(_ path: String) throws -> [Double] {
        let text = String(decoding: try run(["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time",
                                             "-of", "csv=p=0", path], tool: "/usr/bin/ffprobe"), as: UTF8.self)
        return text.split(whereSeparator: \.isNewline).compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// The audio track on the file's timeline: 48 kHz mono, sample `i` at `i / 48000` s from the file's time zero
    /// (silence where the track starts later or has a gap), the time ffprobe gives the video frames. `-copyts`: by
    /// default ffmpeg moves every timestamp back by the file's start time (its earliest packet), so sound measured
    /// here came that much early against the pictures' times (an individual file starts when its stream's
    /// connection came up, 20-50 ms after the archive's start: until 2026-11-28 that was counted as A/V offset).
    /// Every gap or overlap of more than 2 ms is filled or trimmed (`min_hard_comp`; by default aresample leaves
    /// those under 100 ms, so each lost 20 ms packet would move all later sound 20 ms earlier on this timeline).
    static func audioTimeline(_ path: String) throws -> [Int16] {
        let data = try run(["-nostdin", "-v", "error", "-copyts", "-i", path, "-vn",
                            "-af", "aresample=async=1:min_hard_comp=0.002:first_pts=0",
                            "-f", "s16le", "-ac", "1", "-ar", "48000", "-"])
        return data.withUnsafeBytes { raw in (0..<raw.count / 2).map { raw.loadUnaligned(fromByteOffset: 2 * $0, as: Int16.self) } }
    }

    /// The time and duration in seconds of every audio packet, in file order.
    static func audioPacketTimes(_ path: String) throws -> [(time: Double, duration: Double)] {
        let text = String(decoding: try run(["-v", "error", "-select_streams", "a:0", "-show_entries",
                                             "packet=pts_time,duration_time", "-of", "csv=p=0", path],
                                            tool: "/usr/bin/ffprobe"), as: UTF8.self)
        return text.split(whereSeparator: \.isNewline).compactMap { line in
            let fields = line.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            return fields.count == 2 ? (fields[0], fields[1]) : nil
        }
    }

    /// The whole audio track, decoded, 48 kHz mono.
    static func audio(_ path: String) throws -> [Int16] {
        let data = try run(["-nostdin", "-v", "error", "-i", path, "-vn", "-f", "s16le", "-ac", "1", "-ar", "48000", "-"])
        return data.withUnsafeBytes { raw in (0..<raw.count / 2).map { raw.loadUnaligned(fromByteOffset: 2 * $0, as: Int16.self) } }
    }

    /// The amplitude of the `frequency` component of `samples` between `from` and `to` seconds (Goertzel): about
    /// the peak value of a sine at that frequency, near zero when it is absent.
    static func amplitude(of frequency: Double, in samples: [Int16], from: Double, to: Double) -> Double {
        let start = max(0, Int(from * 48_000)), end = min(samples.count, Int(to * 48_000))
        guard end > start else { return 0 }
        let coefficient = 2 * cos(2 * Double.pi * frequency / 48_000)
        var s1 = 0.0, s2 = 0.0
        for i in start..<end {
            let s0 = Double(samples[i]) + coefficient * s1 - s2
            s2 = s1
            s1 = s0
        }
        let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
        return 2 * power.squareRoot() / Double(end - start)
    }

    private static func run(_ arguments: [String], tool: String = "/usr/bin/ffmpeg") throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(tool) \(arguments.joined(separator: " ")) failed")
        return data
    }
}
