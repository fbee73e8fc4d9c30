import Logging
import TokKitProtocol

/// The server's archives (issue 16; Docs/Archiving.md, "The archive service"): starts and stops recordings through
/// an ``ArchiveRecorderFactory``, keeps their records in an ``ArchiveStore``, tells the session's members
/// (`archiveStarted` / `archiveStopped`) and records `archiveMode: always` sessions from their first stream to their
/// last.
///
/// An actor. Each archive this server runs has an explicit ``Phase``: `starting` (the recorder is joining),
/// `recording`, `stopping` (its `stopped` record being saved), `finishing` (files being finished; the `available` or
/// `failed` record is saved only after the `stopped` one). A record in the store whose archive is not in
/// ``running`` is settled: `available`, `failed` or `deleted`. Every check happens before the first `await` that
/// follows it, so concurrent calls cannot both start an archive of one session.
actor ArchiveService {
    /// Archives running at once, at most (each is a recorder joined to its session, writing to disk).
    static let maximumRunning = 32
    /// A recording is stopped after this long, as OpenTok's are (its files stay, `available`).
    static let maximumDuration = Duration.seconds(4 * 3600)

    /// A running archive's phase.
    enum Phase: Sendable {
        /// The recorder is joining the session.
        case starting
        /// Recording.
        case recording(any ArchiveRecording, started: ContinuousClock.Instant)
        /// Stopped: its `stopped` record is being saved and members told, before the recorder is asked to finish.
        case stopping
        /// Stopped; the recorder finishes its files.
        case finishing(Task<Void, Never>)
    }

    private struct Running {
        var record: ArchiveRecord
        var phase: Phase
    }

    /// The store, nil when no archive directory is configured (every call then answers ``ArchiveError/unavailable(_:)``).
    let store: ArchiveStore?
    private let recorder: (any ArchiveRecorderFactory)?
    private let registry: SessionRegistry
    private let authority: TokenAuthority
    /// The server's connection limits: a recorder's ticket while it joins, and the credential it shows
    /// (``ConnectionLimiter``); nil in tests without a server.
    private let limiter: ConnectionLimiter?
    private let logger: Logger
    private var serverURL: String?
    private var running: [String: Running] = [:]
    /// The archive recording (or starting in) each session.
    private var bySession: [String: String] = [:]
    private var activity: Task<Void, Never>?
    /// False until ``open(serverURL:)`` has recovered the archives a killed server left `started`: until then such a
    /// record is not in ``running`` and must not be deleted under the recovery.
    private var recovered = false
    /// The timers that stop recordings at ``maximumDuration``.
    private var limits: [String: Task<Void, Never>] = [:]

    init(store: ArchiveStore?, recorder: (any ArchiveRecorderFactory)?, registry: SessionRegistry,
         authority: TokenAuthority, limiter: ConnectionLimiter? = nil, logger: Logger)
    {
        self.store = store
        self.recorder = recorder
        self.registry = registry
        self.authority = authority
        self.limiter = limiter
        self.logger = logger
    }

    // MARK: Lifecycle

    /// The server listens at `serverURL`: recovers the archives a killed server left recording and follows the
    /// registry's `archiveMode: always` activity.
    func open(serverURL: String) async {
        self.serverURL = serverURL
        if let store {
            do throws(ArchiveError) {
                for record in try await store.recoverInterrupted(now: WallClock.milliseconds()) {
                    logger.notice("archive recovered after a restart", metadata: [
                        "archive_id": "\(record.id)", "status": "\(record.status.rawValue)"])
                }
            } catch {
                logger.error("archive recovery failed: \(error)")
            }
        }
        recovered = true
        // One buffered wake at most: the work itself waits in the registry, one item per session.
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await registry.setArchiveActivity(wake)
        activity = Task { [weak self] in
            for await _ in wakes {
                guard let self else { return }
                await self.takeActivity()
            }
        }
    }

    /// Acts on the registry's pending archive work until there is none (bounded: work queued after the last round
    /// has left a wake behind).
    private func takeActivity() async {
        for _ in 0..<64 {
            let work = await registry.takeArchiveActivity()
            guard !work.isEmpty else { return }
            for event in work { await handle(event) }
        }
    }

    /// Stops every running archive and waits until their files are finished (server shutdown).
    func close() async {
        await registry.setArchiveActivity(nil)
        activity?.cancel()
        activity = nil
        for id in Array(running.keys) {
            await settledStart(id)
            _ = try? await stop(id)
        }
        for id in Array(running.keys) { await settled(id) }
    }

    /// Waits until archive `id` is no longer running (finished, failed or never started here).
    func settled(_ id: String) async {
        for _ in 0..<600 {
            switch running[id]?.phase {
            case nil: return
            case let .finishing(task): await task.value
            case .starting, .recording, .stopping: try? await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    private func handle(_ event: ArchiveActivity) async {
        switch event {
        case let .streamsLive(sessionID):
            guard bySession[sessionID] == nil else { return }
            do throws(ArchiveError) {
                _ = try await start(ArchiveOptions(sessionID: sessionID))
            } catch {
                logger.warning("archiveMode always: could not start an archive", metadata: [
                    "session_id": "\(sessionID)", "reason": "\(error)"])
            }
        case let .streamsEnded(sessionID), let .idle(sessionID):
            guard let id = bySession[sessionID] else { return }
            await settledStart(id)
            if case .idle = event {
                // A client may have joined since the sweep found the session empty: then it goes on recording.
                guard await !registry.hasParticipants(in: sessionID) else { return }
                logger.notice("archive stopped: no client in its session", metadata: ["archive_id": "\(id)"])
            }
            _ = try? await stop(id)
        }
    }

    /// Waits while archive `id` is starting (bounded).
    private func settledStart(_ id: String) async {
        for _ in 0..<600 {
            guard case .starting = running[id]?.phase else { return }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    // MARK: Calls

    /// Starts recording `options.sessionID`. Returns the `started` record.
    func start(_ options: ArchiveOptions) async throws(ArchiveError) -> ArchiveRecord {
        guard let store else { throw .unavailable("no archive directory is configured") }
        guard let recorder else { throw .unavailable("this server has no archive recorder") }
        guard let serverURL else { throw .unavailable("the server is not running") }
        let valid = try options.validated()
        do throws(ProtocolError) {
            _ = try await registry.session(options.sessionID)
        } catch {
            throw .sessionNotFound
        }
        guard bySession[options.sessionID] == nil else { throw .conflict("the session is already being archived") }
        guard running.count < Self.maximumRunning else {
            throw .limit("this server runs \(Self.maximumRunning) archives at most; stop one first")
        }
        let record = ArchiveRecord(
            id: ArchiveID.make(), sessionID: options.sessionID, name: valid.name, outputMode: valid.outputMode,
            hasAudio: valid.hasAudio, hasVideo: valid.hasVideo, resolution: valid.resolution, status: .started,
            createdAt: WallClock.milliseconds())
        bySession[record.sessionID] = record.id
        running[record.id] = Running(record: record, phase: .starting)

        let recording: any ArchiveRecording
        do throws(ArchiveError) {
            try await ArchiveFiles.makeDirectoryOffPool(store.directory(of: record.id))
            try await store.save(record)
            let token: String
            do throws(ProtocolError) {
                token = try authority.issueHidden(sessionID: record.sessionID, now: WallClock.seconds()).token
            } catch {
                throw .storage("cannot issue the recorder's token: \(error.message)")
            }
            do throws(ArchiveRecorderError) {
                // While it joins, the recorder may connect over a busy address's cap (ConnectionLimiter).
                limiter?.grantRecorderTicket()
                defer { limiter?.returnRecorderTicket() }
                let credential = limiter.map {
                    RecorderCredential(field: ConnectionLimiter.recorderHeader, value: $0.recorderCredential)
                }
                recording = try await recorder.start(ArchiveRecordingRequest(
                    serverURL: serverURL, apiKey: authority.apiKey, sessionID: record.sessionID, token: token,
                    directory: store.directory(of: record.id), outputMode: record.outputMode,
                    hasAudio: record.hasAudio, hasVideo: record.hasVideo, resolution: record.resolution,
                    credential: credential))
            } catch {
                throw .recorder(error)
            }
        } catch {
            running[record.id] = nil
            bySession[record.sessionID] = nil
            if case .recorder(.unsupportedOutputMode) = error {
                // Refused as bad input: nothing is left of it.
                try? await store.remove(record.id)
            } else {
                var failed = record
                failed.status = .failed
                failed.reason = error.protocolError.message
                try? await store.save(failed)
            }
            await ArchiveFiles.removeIfEmpty(store.directory(of: record.id))
            logger.warning("archive did not start", metadata: ["archive_id": "\(record.id)", "reason": "\(error)"])
            throw error
        }
        running[record.id]?.phase = .recording(recording, started: .now)
        limits[record.id] = Task { [weak self, id = record.id] in
            guard (try? await Task.sleep(for: Self.maximumDuration)) != nil else { return }
            await self?.stopAtLimit(id)
        }
        await registry.archiveStarted(sessionID: record.sessionID, id: record.id, name: record.name)
        logger.info("archive started", metadata: ["archive_id": "\(record.id)", "session_id": "\(record.sessionID)"])
        return record
    }

    /// Stops a recording archive. Returns its `stopped` record; it becomes `available` (or `failed`) once the
    /// recorder finished its files.
    func stop(_ id: String) async throws(ArchiveError) -> ArchiveRecord {
        guard let store else { throw .unavailable("no archive directory is configured") }
        guard ArchiveID.isValid(id) else { throw .notFound }
        guard let current = running[id] else {
            guard try await store.record(id) != nil else { throw .notFound }
            throw .conflict("the archive is not recording")
        }
        guard case let .recording(recording, started) = current.phase else {
            throw .conflict("the archive is not recording")
        }
        // The files end here, not when the recorder's stop is reached (after the record is saved and the members told).
        let asked = ContinuousClock.now
        recording.end(at: asked)
        limits.removeValue(forKey: id)?.cancel()
        var record = current.record
        record.status = .stopped
        record.duration = Self.seconds(asked - started)
        running[id] = Running(record: record, phase: .stopping)
        if bySession[record.sessionID] == id { bySession[record.sessionID] = nil }
        do throws(ArchiveError) {
            try await store.save(record)
        } catch {
            logger.error("archive record not saved: \(error)")
        }
        await registry.archiveStopped(sessionID: record.sessionID, id: id)
        // Only now: the finished record must be saved after the stopped one, never overwritten by it.
        running[id]?.phase = .finishing(Task { await self.finish(record, recording: recording) })
        logger.info("archive stopped", metadata: ["archive_id": "\(id)"])
        return record
    }

    private func stopAtLimit(_ id: String) async {
        limits[id] = nil
        guard case .recording = running[id]?.phase else { return }
        logger.notice("archive stopped at its maximum duration", metadata: ["archive_id": "\(id)"])
        _ = try? await stop(id)
    }

    /// The record of `id` (a running archive's as it is now).
    func archive(_ id: String) async throws(ArchiveError) -> ArchiveRecord {
        guard let store else { throw .unavailable("no archive directory is configured") }
        guard ArchiveID.isValid(id) else { throw .notFound }
        if let current = running[id] { return current.record }
        guard let record = try await store.record(id) else { throw .notFound }
        return record
    }

    /// A page of records, newest first.
    func list(sessionID: String?, offset: Int, count: Int) async throws(ArchiveError)
        -> (total: Int, items: [ArchiveRecord])
    {
        guard let store else { throw .unavailable("no archive directory is configured") }
        guard (0...1_000_000).contains(offset) else { throw .invalid("offset must be 0...1000000") }
        guard (1...1_000).contains(count) else { throw .invalid("count must be 1...1000") }
        let page = try await store.list(sessionID: sessionID, offset: offset, count: count)
        let items = page.items.map { running[$0.id]?.record ?? $0 }
        return (page.total, items)
    }

    /// Deletes an archive's files; its record stays, `deleted`. Refused while it runs.
    func delete(_ id: String) async throws(ArchiveError) {
        guard let store else { throw .unavailable("no archive directory is configured") }
        guard ArchiveID.isValid(id) else { throw .notFound }
        guard recovered else { throw .unavailable("the archive service is starting") }
        guard running[id] == nil else { throw .conflict("the archive is still recording or finishing") }
        guard var record = try await store.record(id) else { throw .notFound }
        guard record.status != .deleted else { throw .conflict("the archive is already deleted") }
        try await ArchiveFiles.remove(store.directory(of: id))
        record.status = .deleted
        record.size = 0
        record.streams = []
        try await store.save(record)
        logger.info("archive deleted", metadata: ["archive_id": "\(id)"])
    }

    /// The file of stream `streamID` of archive `id` (its first stream's when nil): path and size. Only for an
    /// `available` archive (or a `failed` one that kept files).
    func file(of id: String, stream streamID: String?) async throws(ArchiveError) -> (path: String, size: Int64) {
        guard let store else { throw .unavailable("no archive directory is configured") }
        let record = try await archive(id)
        guard record.status == .available || (record.status == .failed && !record.streams.isEmpty) else {
            throw .conflict("the archive is \(record.status.rawValue), not available")
        }
        let chosen: ArchiveStreamFile?
        if let streamID {
            chosen = record.streams.first { $0.streamID.utf8.elementsEqual(streamID.utf8) }
        } else {
            chosen = record.streams.first
        }
        guard let chosen else { throw .invalid(streamID == nil ? "the archive has no file" : "no such stream in the archive") }
        guard ArchiveFiles.isPlainFileName(chosen.file) else { throw .storage("bad file name in the record") }
        let path = "\(store.directory(of: id))/\(chosen.file)"
        guard let size = await ArchiveFiles.size(of: path) else { throw .storage("the archive's file is missing") }
        return (path, size)
    }

    // MARK: Finishing

    private func finish(_ stopped: ArchiveRecord, recording: any ArchiveRecording) async {
        let result = await recording.stop()
        var record = stopped
        var streams: [ArchiveStreamFile] = []
        var failures: [String] = []
        for file in result.files {
            let name = String(file.path.split(separator: "/").last ?? "")
            guard ArchiveFiles.isPlainFileName(name), let size = await ArchiveFiles.size(of: file.path) else {
                failures.append("missing file for stream \(file.streamID)")
                continue
            }
            if let failure = file.failure { failures.append("stream \(file.streamID): \(failure)") }
            streams.append(ArchiveStreamFile(
                streamID: file.streamID, file: name,
                startOffset: file.startOffset.map { Int64(Self.seconds($0) * 1_000) }, size: size))
        }
        record.streams = streams
        record.size = streams.reduce(0) { $0 + $1.size }
        if let duration = result.duration { record.duration = Self.seconds(duration) }
        if !result.files.contains(where: { $0.startOffset != nil }) {
            // No stream's media ever reached a file: not kept as `available` (Docs/Protocol.md 5.7), files removed.
            if let store { try? await ArchiveFiles.remove(store.directory(of: record.id)) }
            record.status = .failed
            // The recorder's own reasons (a missing file, a recorder error) stay, after the verdict.
            record.reason = ([Self.nothingRecorded] + failures).joined(separator: "; ")
            record.streams = []
            record.size = 0
        } else if failures.isEmpty {
            record.status = .available
        } else {
            record.status = .failed
            record.reason = failures.joined(separator: "; ")
        }
        do throws(ArchiveError) {
            try await store?.save(record)
        } catch {
            logger.error("archive record not saved: \(error)")
        }
        running[record.id] = nil
        logger.info("archive finished", metadata: [
            "archive_id": "\(record.id)", "status": "\(record.status.rawValue)", "size": "\(record.size)"])
    }

    /// The `reason` of an archive whose recorder never wrote any stream's media.
    static let nothingRecorded = "no media was recorded"

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
