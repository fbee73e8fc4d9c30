import Foundation
import Testing
import TokKitProtocol
import TokKitProtocolFuzz

/// Replays the committed fuzz seeds and every crasher found so far (Fuzz/seeds, Fuzz/regressions) of the protocol
/// targets through the same harness the libFuzzer targets run, so a fixed crash stays fixed without the fuzzer.
@Suite struct ProtocolFuzzCorpusTests {
    static let fuzzDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    /// The harness function of a target.
    static func harness(_ target: String) -> ((UnsafeRawBufferPointer) -> Void)? {
        switch target {
        case "token": fuzzToken
        case "client": fuzzClientMessage
        case "server": fuzzServerMessage
        case "rest": fuzzRESTBody
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

    @Test(arguments: ["token", "client", "server", "rest"])
    func seedsAndRegressionsPass(target: String) throws {
        let run = try #require(Self.harness(target))
        let seeds = try Self.inputs("seeds", target)
        #expect(!seeds.isEmpty, "Fuzz/seeds/\(target) is missing or empty")
        for file in seeds + (try Self.inputs("regressions", target)) {
            let data = try Data(contentsOf: file)
            data.withUnsafeBytes { run($0) }
        }
    }

    /// The token and token-request seeds are accepted at the harness's first clock, so the fuzzer starts on the
    /// accepting path of the claim checks (a seed refused as "issued in the future" would leave it to chance).
    @Test func tokenSeedsAreValidAtTheFuzzClock() throws {
        let now = FuzzTokens.nows[0]
        for file in try Self.inputs("seeds", "token") {
            let bytes = [UInt8](try Data(contentsOf: file))
            switch bytes.first {
            case 1: #expect(throws: Never.self, "\(file.lastPathComponent)") {
                _ = try TokenClaims.verified(payload: Array(bytes.dropFirst()), apiKey: FuzzTokens.apiKey, now: now)
            }
            case 2: #expect(throws: Never.self, "\(file.lastPathComponent)") {
                _ = try AdminClaims.verified(payload: Array(bytes.dropFirst()), apiKey: FuzzTokens.apiKey, now: now)
            }
            default: continue
            }
        }
        let request = try #require(try Self.inputs("seeds", "rest").first { $0.lastPathComponent == "token-request" })
        let body = try WireCodec.decode(TokenRequest.self, from: [UInt8](try Data(contentsOf: request)).dropFirst())
        #expect(throws: Never.self) { _ = try Validation.tokenExpiry(body.expireTime, now: now) }
    }

    /// Every target Fuzz/run knows has a harness here, and every directory of seeds belongs to a target: a new
    /// target cannot go unreplayed.
    @Test func everyProtocolTargetIsReplayed() throws {
        let script = try String(contentsOf: Self.fuzzDirectory.appendingPathComponent("run"), encoding: .utf8)
        let line = try #require(script.split(separator: "\n").first { $0.hasPrefix("protocol_targets=") })
        let targets = line.dropFirst("protocol_targets=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\"()"))
            .split(separator: " ").map(String.init)
        #expect(targets == ["token", "client", "server", "rest"])
        for target in targets { #expect(Self.harness(target) != nil, "\(target) has no harness in this suite") }
    }
}
