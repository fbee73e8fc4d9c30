import Foundation
import Glibc
import Testing

/// A writer killed with SIGKILL (no trailer, no cues, Segment of unknown size) leaves a file that decodes up to the
/// last cluster it finished: tokkit-webm-crash-writer writes 5 s with 1 s clusters and is killed with the file open.
@Suite struct CrashSafetyTests {
    static func helper(_ name: String) -> String? {
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let candidate = me.deletingLastPathComponent().appendingPathComponent(name).path
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }

    @Test func aKilledWriterLeavesADecodableFile() throws {
        let executable = try #require(Self.helper("tokkit-webm-crash-writer"),
                                      "tokkit-webm-crash-writer is not built next to the tests: run `swift build --build-tests`")
        let directory = try MediaTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("killed.webm").path

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [file, "5"]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Wait for "ready ..." (everything handed to the writer, file still open), then kill it.
        var line = Data()
        let reader = output.fileHandleForReading
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let ready = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let sizeBeforeKill = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
        #expect(ready == "ready 150 250", "the helper wrote 5 s: \(ready)")
        let sizeAfterKill = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        #expect(sizeBeforeKill > 0 && sizeAfterKill == sizeBeforeKill, "what is on disk was there before the kill")

        let probe = try MediaTools.probe(file)
        #expect(probe.video?.codecName == "vp8" && probe.audio?.codecName == "opus")
        let frames = try #require(probe.video?.frames)
        let packets = try #require(probe.audio?.packets)
        print("killed writer: \(sizeAfterKill) bytes on disk, \(frames) video frames (\(Double(frames) / 30) s), "
              + "\(packets) audio packets (\(Double(packets) / 50) s) decodable of 5 s written")
        #expect((120...150).contains(frames), "4-5 s of video decodes: \(frames) frames")
        #expect((200...250).contains(packets), "4-5 s of audio: \(packets) packets")
        let decoded = try MediaTools.decode(file)
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "ffmpeg: \(decoded.stderr)")
    }
}
