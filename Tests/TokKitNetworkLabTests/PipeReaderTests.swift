import Foundation
import Testing
import TokKitNetworkLab

/// The lab's pipe readers under the churn the lab makes: many short processes at once, each with piped outputs.
@Suite struct PipeReaderTests {
    /// 400 commands, 16 at a time: every output arrives whole and in order. Read with
    /// `FileHandle.readabilityHandler` (as before), this churn crashes the test process in libdispatch's
    /// `_dispatch_event_loop_drain` within 20 repetitions (`--repetitions 20`), as one CI run crashed.
    @Test func manyShortCommandsAtOnceEachGetTheirWholeOutput() async throws {
        var wrong: [String] = []
        for batch in 0..<25 {
            try await withThrowingTaskGroup(of: String?.self) { group in
                for n in batch * 16..<(batch + 1) * 16 {
                    group.addTask {
                        let count = n % 50 + 1
                        let out = try await Command.run(["/bin/sh", "-c", "seq 1 \(count); echo e\(n) >&2"])
                        let expected = (1...count).map { String($0) }.joined(separator: "\n") + "\n"
                        return out == expected ? nil : "\(n): \(out.debugDescription)"
                    }
                }
                for try await failure in group { if let failure { wrong.append(failure) } }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }

    /// A failing command's error output reaches its error, and a 300 KB output (more than a pipe holds) arrives
    /// whole: the reader drains while the program writes.
    @Test func errorOutputAndLargeOutputs() async throws {
        let failure = await #expect(throws: LabError.self) {
            try await Command.run(["/bin/sh", "-c", "echo broken >&2; exit 3"])
        }
        #expect(failure == .commandFailed(command: "/bin/sh -c echo broken >&2; exit 3", status: 3, output: "broken\n"))
        let big = try await Command.run(["/bin/sh", "-c", "head -c 300000 /dev/zero | tr '\\0' x"])
        let allX = big.utf8.allSatisfy { $0 == UInt8(ascii: "x") }
        #expect(big.utf8.count == 300_000)
        #expect(allX)
    }

    /// A collector keeps lines as they come, the last one without a newline at EOF, and drops the oldest beyond
    /// its capacity while counting them.
    @Test func lineCollectorKeepsTheNewestLines() async throws {
        let pipe = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "seq 1 30; printf tail"]
        process.standardOutput = pipe
        try process.run()
        let lines = LineCollector(pipe, name: "test-lines", capacity: 10)
        let deadline = ContinuousClock.now + .seconds(10)
        while !lines.finished, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(lines.finished)
        let expected: [String] = (22...30).map { String($0) } + ["tail"]
        #expect(lines.lines == expected)
        var seen = 25
        #expect(lines.lines(after: &seen) == ["26", "27", "28", "29", "30", "tail"])
        #expect(seen == 31)
    }
}
