import Foundation
import Testing
import TokKitNetworkLab

/// `demo --media-mode routed` (issue 15): the demo's own server starts an embedded Janus and the call goes through
/// it, printing the same lines as the relayed demo (figures and ids aside). Janus needs a non-loopback address: inside
/// `unshare -n` (as scripts/test runs it) the test process's lab address (198.18.0.2, `NetworkLab`) is the one.
@Suite(.serialized) struct DemoMediaModeTests {
    @Test func theRoutedDemoPrintsWhatTheRelayedOnePrints() async throws {
        try await NetworkLab.run { _ in
            let relayed = try await ExampleProcess.run("demo", ["--seconds", "3"], limit: .seconds(90))
            let routed = try await ExampleProcess.run("demo", ["--seconds", "3", "--media-mode", "routed"],
                                                      limit: .seconds(90))
            #expect(relayed.ending == .exited(0), "\(relayed.errors)")
            #expect(routed.ending == .exited(0), "\(routed.errors)")
            print("demo relayed:\n\(relayed.output)\ndemo routed:\n\(routed.output)")
            #expect(Self.shape(routed.output) == Self.shape(relayed.output))
            for run in [relayed, routed] {
                #expect(run.output.contains("strongest frequency 440 Hz"), "the tone is heard")
                for name in ["Alice", "Bob"] {
                    let frames = Self.framesReceived(by: name, in: run.output)
                    #expect((frames ?? 0) >= 10, "\(name) received \(String(describing: frames)) frames")
                }
            }
        }
    }

    @Test func anUnknownMediaModeIsRefused() async throws {
        let run = try await ExampleProcess.run("demo", ["--media-mode", "mixed"], limit: .seconds(30))
        #expect(run.ending == .exited(2) && run.errors.contains("relayed or routed"), "\(run)")
    }

    /// The output's lines, each with its words holding a digit (ports, ids, figures) replaced by `#`, sorted (the
    /// two participants' events interleave differently from run to run).
    static func shape(_ output: String) -> [String] {
        output.split(separator: "\n").map { line in
            var previous = ""
            return line.split(separator: " ").map { word in
                // Numbers vary, and so do ids: the word after "as" or "session" is a random id, which may hold no
                // digit (a 22-character id has none about once in 40).
                defer { previous = String(word) }
                return word.contains(where: \.isNumber) || previous == "as" || previous == "session" ? "#" : String(word)
            }.joined(separator: " ")
        }.sorted()
    }

    /// N in "NAME received N frames".
    static func framesReceived(by name: String, in output: String) -> Int? {
        for line in output.split(separator: "\n") where line.hasPrefix(name) && line.contains(" received ") {
            let words = line.split(separator: " ")
            if let i = words.firstIndex(of: "received"), i + 1 < words.count { return Int(words[i + 1]) }
        }
        return nil
    }
}
