import Foundation
import Testing

/// Issue 16: the `archiving` example run for real, alone (its embedded server records): it publishes, starts an
/// archive through the tutorial web service, stops it after `--seconds`, waits until it is available, downloads it
/// and prints `archive <id> available <path> <duration> s`; ffprobe reads the downloaded file.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ArchivingExampleTests {
    @Test("records, downloads and reports its archive", arguments: [[], ["--composed"]])
    func recordsAndDownloads(extra: [String]) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("archiving-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("downloaded.webm").path

        let run = try await ExampleProcess.run("archiving", ["--seconds", "3", "--output", output] + extra,
                                               limit: .seconds(120))
        #expect(!run.killedAtLimit && run.ending == .exited(0), "\(run.ending): \(run.output) \(run.errors)")
        let last = try #require(run.output.split(separator: "\n").last.map(String.init), "no output: \(run.errors)")
        let words = last.split(separator: " ").map(String.init)
        #expect(words.count == 6 && words[0] == "archive" && words[2] == "available" && words[3] == output
                && words[5] == "s", "last line: \(last)")
        #expect(words.count > 1 && words[1].count == 36, "an archive id: \(last)")
        let duration = try #require(words.count > 4 ? Double(words[4]) : nil, "a duration: \(last)")
        #expect((2.5...5.0).contains(duration), "about 3 s: \(last)")

        let size = try #require(FileManager.default.attributesOfItem(atPath: output)[.size] as? Int)
        #expect(size > 10_000, "\(size) bytes")
        let probe = try Self.ffprobe(output)
        #expect(probe.codecs.sorted() == ["opus", "vp8"], "\(probe.codecs)")
        #expect((2.0...5.0).contains(probe.duration), "ffprobe: \(probe.duration) s")
        #expect(run.filesLeft.isEmpty, "nothing written in the working directory with --output: \(run.filesLeft)")
    }

    /// ffprobe's streams' codecs and the file's duration (a missing ffprobe fails the test).
    static func ffprobe(_ path: String) throws -> (codecs: [String], duration: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = ["-v", "error", "-show_entries", "stream=codec_name:format=duration", "-of", "json", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let codecs = (json["streams"] as? [[String: Any]] ?? []).map { $0["codec_name"] as? String ?? "?" }
        let duration = Double((json["format"] as? [String: Any])?["duration"] as? String ?? "") ?? 0
        return (codecs, duration)
    }
}
