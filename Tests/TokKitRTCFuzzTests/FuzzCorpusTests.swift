import Foundation
import Testing
import TokKitRTCFuzz

/// Replays the committed fuzz seeds and every crasher found so far (Fuzz/seeds, Fuzz/regressions) through the
/// same harness the libFuzzer targets run, so a fixed crash stays fixed without running the fuzzer.
@Suite struct FuzzCorpusTests {
    static let fuzzDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    /// The harness function of a target.
    static func harness(_ target: String) -> ((UnsafeRawBufferPointer) -> Void)? {
        switch target {
        case "rtp": fuzzRTP
        case "rtcp": fuzzRTCP
        case "demux": fuzzDemultiplexer
        case "sdp": fuzzSDP
        case "vp8": fuzzVP8
        default: nil
        }
    }

    /// Files of `Fuzz/<kind>/<target>`; empty if the directory does not exist.
    static func inputs(_ kind: String, _ target: String) throws -> [URL] {
        let dir = fuzzDirectory.appendingPathComponent(kind).appendingPathComponent(target)
        guard FileManager.default.fileExists(atPath: dir.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.path < $1.path }
    }

    @Test(arguments: ["rtp", "rtcp", "demux", "sdp", "vp8"])
    func seedsAndRegressionsPass(target: String) throws {
        let run = try #require(Self.harness(target))
        let seeds = try Self.inputs("seeds", target)
        #expect(!seeds.isEmpty, "Fuzz/seeds/\(target) is missing or empty")
        for file in seeds + (try Self.inputs("regressions", target)) {
            let data = try Data(contentsOf: file)
            data.withUnsafeBytes { run($0) }
        }
    }
}
