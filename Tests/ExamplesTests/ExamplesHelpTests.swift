import Foundation
import Testing

/// Issue 17: `basics`, `custom-capturer`, `custom-renderer` and `custom-audio-driver` ignored `--help` and ran (as
/// did `controls`, `demo`, `list-cameras` and `screen-capture`; `noise-audio` refused it with status 2). Every
/// example answers `--help` and `-h` with its usage on standard output and exit status 0, without running: it prints
/// nothing else, and leaves nothing in its working directory (the examples write images, recordings and WAV files
/// there when they run).
@Suite(.serialized, .timeLimit(.minutes(5))) struct ExamplesHelpTests {
    /// Every example (the executables under Examples/; Help and Support are libraries).
    static let examples = [
        "archiving", "basics", "controls", "custom-audio-driver", "custom-capturer", "custom-renderer", "demo", "list-cameras",
        "noise-audio", "noise-renderer", "screen-capture", "signaling-chat",
    ]

    @Test("the list covers every example under Examples/")
    func everyExampleIsListed() throws {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()  // Tests/ExamplesTests
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples")
        let directories = try FileManager.default.contentsOfDirectory(atPath: examples.path)
            .filter { !["Help", "Support"].contains($0) && !$0.hasPrefix(".") }
        #expect(!directories.isEmpty)
        #expect(Set(directories) == Set(Self.examples))
    }

    @Test("answers with its usage and exits 0 without running", arguments: ExamplesHelpTests.examples, ["--help", "-h"])
    func answersHelp(example: String, flag: String) async throws {
        let run = try await ExampleProcess.run(example, [flag])
        #expect(!run.killedAtLimit, "\(example) \(flag) was still running after the limit")
        #expect(run.ending == .exited(0), "\(example) \(flag): \(run.ending); output: \(run.output) \(run.errors)")
        let lines = run.output.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.contains { $0.lowercased().hasPrefix("usage: \(example)") },
                "\(example) \(flag) printed no usage line: \(run.output) \(run.errors)")
        // Nothing of a run: no progress lines ("* server running …", "* … connected …") and no files.
        #expect(!lines.contains { $0.hasPrefix("* ") }, "\(example) \(flag) ran: \(run.output)")
        #expect(run.filesLeft.isEmpty, "\(example) \(flag) wrote \(run.filesLeft)")
    }

    @Test("keeps running as before without --help: a bad argument is still refused")
    func badArgumentsAreStillRefused() async throws {
        let run = try await ExampleProcess.run("noise-audio", ["0"])
        #expect(run.ending == .exited(2))
        #expect(run.output.hasPrefix("usage: noise-audio"))
    }
}
