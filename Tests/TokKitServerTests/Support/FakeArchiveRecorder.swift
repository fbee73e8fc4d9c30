import Foundation
import Synchronization
import TokKitServer

/// An ``ArchiveRecorderFactory`` that joins nothing: each start writes one small file per named stream into the
/// archive's directory (`<stream>.webm`, a few hundred known bytes) and stop returns them. It refuses composed mode
/// as the real recorder does, and fails starts while `failing` is set. Counts starts and stops, and keeps the instants
/// stops were asked at.
final class FakeArchiveRecorder: ArchiveRecorderFactory {
    struct Counts: Sendable, Equatable {
        var starts = 0
        var stops = 0
    }

    let streams: [String]
    private let state = Mutex<(counts: Counts, failing: Bool, requests: [ArchiveRecordingRequest])>((Counts(), false, []))
    private let asked = Mutex<[ContinuousClock.Instant]>([])

    /// How long each start takes (as a real recorder joining its session).
    let startDelay: Duration

    init(streams: [String] = ["streamA", "streamB"], startDelay: Duration = .zero) {
        self.streams = streams
        self.startDelay = startDelay
    }

    var counts: Counts { state.withLock { $0.counts } }
    var requests: [ArchiveRecordingRequest] { state.withLock { $0.requests } }
    /// The instant each stop was asked at (``ArchiveRecording/end(at:)``), in order.
    var stopsAskedAt: [ContinuousClock.Instant] { asked.withLock { $0 } }
    func fail(_ failing: Bool) { state.withLock { $0.failing = failing } }

    /// The bytes written for stream `name`: its name, then 0...255 repeated (400 bytes in all).
    static func content(_ name: String) -> [UInt8] {
        Array((Array(name.utf8) + (0..<400).map { UInt8($0 % 256) }).prefix(400))
    }

    func start(_ request: ArchiveRecordingRequest) async throws(ArchiveRecorderError) -> any ArchiveRecording {
        guard request.outputMode == .individual else { throw .unsupportedOutputMode(request.outputMode) }
        let failing = state.withLock { s in
            s.requests.append(request)
            if !s.failing { s.counts.starts += 1 }
            return s.failing
        }
        if failing { throw .failed("fake recorder told to fail") }
        if startDelay > .zero { try? await Task.sleep(for: startDelay) }
        var files: [ArchiveRecordingResult.File] = []
        for (index, name) in streams.enumerated() {
            let path = "\(request.directory)/\(name).webm"
            guard FileManager.default.createFile(atPath: path, contents: Data(Self.content(name))) else {
                throw .failed("cannot write \(path)")
            }
            files.append(.init(streamID: name, path: path, startOffset: .milliseconds(index * 1_000)))
        }
        return Recording(files: files, stopped: { [weak self] in self?.state.withLock { $0.counts.stops += 1 } },
                         ended: { [weak self] instant in self?.asked.withLock { $0.append(instant) } })
    }

    struct Recording: ArchiveRecording {
        let files: [ArchiveRecordingResult.File]
        let stopped: @Sendable () -> Void
        let ended: @Sendable (ContinuousClock.Instant) -> Void

        func end(at instant: ContinuousClock.Instant) { ended(instant) }

        func stop() async -> ArchiveRecordingResult {
            stopped()
            return ArchiveRecordingResult(files: files)
        }
    }
}

/// A fresh directory under the temporary directory, removed by `remove()`.
struct TemporaryDirectory: Sendable {
    let path: String

    init(_ prefix: String = "archives") throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
