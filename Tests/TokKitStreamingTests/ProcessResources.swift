import Foundation
import TokKitICETestSupport

/// Names of this process's threads (from /proc/self/task).
func threadNames() -> [String] { processThreads().map(\.name) }

/// Open file descriptors of this process.
func openFileDescriptors() -> Int {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
}
