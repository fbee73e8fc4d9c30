import Foundation
import Testing
@testable import TokKitServer

/// The archive store: records in SQLite that survive reopening, pages newest first, and the recovery of archives a
/// killed server left recording.
@Suite struct ArchiveStoreTests {
    static func record(_ id: String = ArchiveID.make(), session: String = "2_s", createdAt: Int64 = 1_000,
                       status: ArchiveStatus = .available) -> ArchiveRecord {
        ArchiveRecord(id: id, sessionID: session, name: "n", outputMode: .individual, hasAudio: true, hasVideo: false,
                      resolution: "640x480", status: status, createdAt: createdAt, duration: 2.5, size: 9,
                      reason: nil, streams: [ArchiveStreamFile(streamID: "s", file: "s.webm", startOffset: 120, size: 9)])
    }

    @Test func recordsSurviveReopening() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let saved = Self.record()
        do {
            let store = try ArchiveStore(directory: directory.path)
            try await store.save(saved)
            var changed = saved
            changed.status = .deleted
            changed.streams = []
            try await store.save(changed)  // replaces
        }
        let reopened = try ArchiveStore(directory: directory.path + "/")
        let read = try #require(try await reopened.record(saved.id))
        #expect(read.status == .deleted && read.streams.isEmpty && read.name == "n" && read.hasVideo == false)
        #expect(try await reopened.record(ArchiveID.make()) == nil)
        try await reopened.remove(saved.id)
        #expect(try await reopened.record(saved.id) == nil)
        #expect(FileManager.default.fileExists(atPath: "\(directory.path)/archives.sqlite"))
    }

    @Test func listsNewestFirstBySessionWithOffsetAndCount() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try ArchiveStore(directory: directory.path)
        var ids: [String] = []
        for index in 0..<5 {
            let record = Self.record(session: index.isMultiple(of: 2) ? "2_even" : "2_odd", createdAt: Int64(index))
            ids.append(record.id)
            try await store.save(record)
        }
        let all = try await store.list(sessionID: nil, offset: 0, count: 10)
        #expect(all.total == 5 && all.items.map(\.id) == ids.reversed())
        let even = try await store.list(sessionID: "2_even", offset: 1, count: 1)
        #expect(even.total == 3 && even.items.map(\.id) == [ids[2]])
        #expect(try await store.list(sessionID: "2_none", offset: 0, count: 10).total == 0)
        #expect(try await store.list(sessionID: nil, offset: 10, count: 10).items.isEmpty)
        let stream = try #require(all.items.first?.streams.first)
        #expect(stream == ArchiveStreamFile(streamID: "s", file: "s.webm", startOffset: 120, size: 9))
    }

    @Test func anArchiveLeftRecordingIsRecoveredWithItsFiles() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let createdAt = Int64(Date().timeIntervalSince1970 * 1_000) - 5_000
        let recording = Self.record(createdAt: createdAt, status: .started)
        let empty = Self.record(createdAt: createdAt, status: .stopped)
        let settled = Self.record(createdAt: createdAt, status: .available)
        do {
            let store = try ArchiveStore(directory: directory.path)
            for record in [recording, empty, settled] { try await store.save(record) }
            try FileManager.default.createDirectory(atPath: store.directory(of: recording.id), withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: store.directory(of: recording.id) + "/cam.webm",
                                                   contents: Data(repeating: 7, count: 1_234)))
            #expect(FileManager.default.createFile(atPath: store.directory(of: recording.id) + "/notes.txt",
                                                   contents: Data([1])))
        }
        let store = try ArchiveStore(directory: directory.path)
        let now = createdAt + 60_000
        let recovered = try await store.recoverInterrupted(now: now)
        #expect(Set(recovered.map(\.id)) == [recording.id, empty.id])
        let first = try #require(try await store.record(recording.id))
        #expect(first.status == .available && first.reason == "recovered after a server restart")
        #expect(first.size == 1_234 && first.streams == [ArchiveStreamFile(streamID: "cam", file: "cam.webm", startOffset: nil, size: 1_234)])
        #expect((4.0...30.0).contains(first.duration), "from its start to its file's last write: \(first.duration)")
        let second = try #require(try await store.record(empty.id))
        #expect(second.status == .failed && second.reason == "server restarted; nothing was recorded")
        #expect(try await store.record(settled.id) == settled, "a settled archive is left alone")
        #expect(try await store.recoverInterrupted(now: now).isEmpty, "recovery is done once")
    }

    @Test func anUnusableDirectoryIsATypedError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path + "/plain-file"
        #expect(FileManager.default.createFile(atPath: file, contents: Data([1])))
        #expect(throws: ArchiveError.self) { try ArchiveStore(directory: file) }
        #expect(throws: ArchiveError.self) { try ArchiveStore(directory: "") }
    }
}
