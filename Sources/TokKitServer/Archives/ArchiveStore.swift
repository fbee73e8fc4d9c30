import GRDB

/// The archive records, in SQLite through GRDB: `<directory>/archives.sqlite`, beside each archive's own directory
/// `<directory>/<archive id>/` of files. Records survive a restart; ``recoverInterrupted(now:)`` settles the ones a
/// killed server left recording.
///
/// `Sendable`; the calls are `async` and run on GRDB's own serial queue, never blocking the cooperative pool
/// (except ``init(directory:)``, which opens the database once, at server construction).
public final class ArchiveStore: Sendable {
    /// The directory holding the database and the archives' directories.
    public let directory: String
    private let database: DatabaseQueue

    /// Opens (creating if needed) the store in `directory`, which is created if missing.
    /// - Throws: ``ArchiveError/storage(_:)`` when the directory or the database cannot be made.
    public init(directory: String) throws(ArchiveError) {
        let trimmed = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        guard !trimmed.isEmpty else { throw .storage("the archive directory is empty") }
        self.directory = trimmed
        do {
            try ArchiveFiles.makeDirectory(trimmed)
            database = try DatabaseQueue(path: "\(trimmed)/archives.sqlite")
            try Self.migrator.migrate(database)
        } catch let error as ArchiveError {
            throw error
        } catch {
            throw .storage("cannot open \(trimmed)/archives.sqlite: \(error)")
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: ArchiveRecord.databaseTableName) { t in
                t.primaryKey("id", .text)
                t.column("sessionId", .text).notNull().indexed()
                t.column("name", .text).notNull()
                t.column("outputMode", .text).notNull()
                t.column("hasAudio", .boolean).notNull()
                t.column("hasVideo", .boolean).notNull()
                t.column("resolution", .text).notNull()
                t.column("status", .text).notNull()
                t.column("createdAt", .integer).notNull().indexed()
                t.column("duration", .double).notNull()
                t.column("size", .integer).notNull()
                t.column("reason", .text)
                t.column("streams", .text).notNull()
            }
        }
        return migrator
    }

    /// The directory of archive `id` (which ``ArchiveID/isValid(_:)`` accepted).
    func directory(of id: String) -> String { "\(directory)/\(id)" }

    /// Inserts or replaces a record.
    public func save(_ record: ArchiveRecord) async throws(ArchiveError) {
        do {
            try await database.write { db in try record.save(db) }
        } catch {
            throw .storage("\(error)")
        }
    }

    /// Removes the record of `id` (an archive refused before it recorded anything).
    public func remove(_ id: String) async throws(ArchiveError) {
        do {
            _ = try await database.write { db in try ArchiveRecord.deleteOne(db, key: id) }
        } catch {
            throw .storage("\(error)")
        }
    }

    /// The record of `id`, nil when there is none.
    public func record(_ id: String) async throws(ArchiveError) -> ArchiveRecord? {
        do {
            return try await database.read { db in try ArchiveRecord.fetchOne(db, key: id) }
        } catch {
            throw .storage("\(error)")
        }
    }

    /// A page of records, newest first (by `createdAt`, then id), optionally of one session, and how many match
    /// in all.
    public func list(sessionID: String?, offset: Int, count: Int) async throws(ArchiveError)
        -> (total: Int, items: [ArchiveRecord])
    {
        do {
            return try await database.read { db in
                var request = ArchiveRecord.all()
                if let sessionID { request = request.filter(Column("sessionId") == sessionID) }
                let total = try request.fetchCount(db)
                let items = try request.order(Column("createdAt").desc, Column("id"))
                    .limit(count, offset: offset).fetchAll(db)
                return (total, items)
            }
        } catch {
            throw .storage("\(error)")
        }
    }

    /// Settles the records a server killed while they recorded left `started` or `stopped`: each becomes
    /// `available` with the files found in its directory (sizes from the disk, start offsets unknown), a duration
    /// from its start to its newest file's last write, and the reason "recovered after a server restart"; or
    /// `failed` with the reason "server restarted; nothing was recorded" when no file holds anything. Returns them.
    public func recoverInterrupted(now: Int64) async throws(ArchiveError) -> [ArchiveRecord] {
        let interrupted: [ArchiveRecord]
        do {
            interrupted = try await database.read { db in
                try ArchiveRecord.filter([ArchiveStatus.started.rawValue, ArchiveStatus.stopped.rawValue]
                    .contains(Column("status"))).fetchAll(db)
            }
        } catch {
            throw .storage("\(error)")
        }
        var recovered: [ArchiveRecord] = []
        for var record in interrupted {
            let found = await ArchiveFiles.webmFiles(in: directory(of: record.id))
            record.streams = found.map { file in
                ArchiveStreamFile(streamID: String(file.name.dropLast(".webm".count)), file: file.name,
                                  startOffset: nil, size: file.size)
            }
            record.size = found.reduce(0) { $0 + $1.size }
            if record.size > 0 {
                let lastWrite = found.map(\.modified).max() ?? record.createdAt
                record.status = .available
                record.duration = Double(max(0, min(lastWrite, now) - record.createdAt)) / 1_000
                record.reason = "recovered after a server restart"
            } else {
                record.status = .failed
                record.reason = "server restarted; nothing was recorded"
            }
            try await save(record)
            recovered.append(record)
        }
        return recovered
    }
}

extension ArchiveRecord: FetchableRecord, PersistableRecord {
    /// The store's table.
    public static let databaseTableName = "archive"
}
