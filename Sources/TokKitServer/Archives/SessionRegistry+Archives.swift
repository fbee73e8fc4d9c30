import TokKitProtocol

/// What the registry asks of the archive service (Docs/Archiving.md). Pending work is kept per session, the latest
/// replacing the earlier (``SessionRegistry/archiveWork``), so that a publish/unpublish loop in an `always` session
/// cannot grow a queue: the service acts on each session's state as it is when it takes the work.
enum ArchiveActivity: Sendable, Equatable {
    /// An `archiveMode: always` session has a live stream (its first was published).
    case streamsLive(sessionID: String)
    /// An `archiveMode: always` session's last live stream ended.
    case streamsEnded(sessionID: String)
    /// The session has had no participant (no client but hidden ones, the recorder) for
    /// ``ServerConfiguration/archiveIdleStopMs``, or it expired: its recording stops.
    case idle(sessionID: String)
}

/// The archive events of Docs/Protocol.md, 6.4: `archiveStarted` to every member when a recording starts (and to a
/// connection right after its `connected` while one runs), `archiveStopped` when it stops.
extension SessionRegistry {
    /// Archive `id` named `name` records `sessionID`: every member gets `archiveStarted`, and so will each
    /// connection that joins or resumes until ``archiveStopped(sessionID:id:)``.
    func archiveStarted(sessionID: String, id: String, name: String, now: ContinuousClock.Instant = .now) {
        let event = ServerMessage.ArchiveStarted(archiveID: id, name: name)
        recordings[sessionID] = event
        recordingStarts[sessionID] = now
        broadcast(.archiveStarted(event), in: sessionID)
    }

    /// Archive `id` of `sessionID` stopped: every member gets `archiveStopped`.
    func archiveStopped(sessionID: String, id: String) {
        if recordings[sessionID]?.archiveID == id {
            recordings[sessionID] = nil
            recordingStarts[sessionID] = nil
        }
        broadcast(.archiveStopped(.init(archiveID: id)), in: sessionID)
    }

    /// Sends `archiveStarted` to connection `id` when its session is being recorded (after its `connected`).
    func announceRecording(to id: String) {
        guard let sessionID = connections[id]?.membership?.sessionID, let event = recordings[sessionID] else { return }
        send(.archiveStarted(event), to: id)
    }

    /// Who is woken when archive work is pending (the archive service's loop, which then calls
    /// ``takeArchiveActivity()``); nil: nobody, and no work is kept.
    func setArchiveActivity(_ wake: AsyncStream<Void>.Continuation?) {
        archiveWake = wake
        if wake == nil { archiveWork.removeAll() }
    }

    /// The archive work pending (at most one item per session), which is then forgotten.
    func takeArchiveActivity() -> [ArchiveActivity] {
        defer { archiveWork.removeAll(keepingCapacity: true) }
        return Array(archiveWork.values)
    }

    /// Whether `session` has a participant: a member other than the hidden ones (the archive recorder), connected
    /// or awaiting resume. The recorder never keeps a session alive, nor its recording.
    func hasParticipants(_ session: SessionRecord) -> Bool {
        session.connectionIDs.contains { connections[$0]?.membership?.hidden != true }
    }

    /// Whether session `sessionID` has a participant now (``hasParticipants(_:)``); false once it is gone. The
    /// archive service checks again before an idle stop: a client may have joined since the sweep noted it.
    func hasParticipants(in sessionID: String) -> Bool {
        sessions[sessionID].map(hasParticipants) ?? false
    }

    /// Tells the archive service about a stream published in `sessionID` (only for `always` sessions).
    func noteStreamPublished(in sessionID: String) {
        guard let session = sessions[sessionID], session.description.archiveMode == .always,
              session.streamIDs.count == 1
        else { return }
        queueArchiveWork(.streamsLive(sessionID: sessionID), for: sessionID)
    }

    /// Tells the archive service about a stream ended in `sessionID` (only for `always` sessions).
    func noteStreamEnded(in sessionID: String) {
        guard let session = sessions[sessionID], session.description.archiveMode == .always,
              session.streamIDs.isEmpty
        else { return }
        queueArchiveWork(.streamsEnded(sessionID: sessionID), for: sessionID)
    }

    /// Asks the archive service to stop the recording of `sessionID`, which has no participant.
    func noteArchiveIdle(_ sessionID: String) {
        queueArchiveWork(.idle(sessionID: sessionID), for: sessionID)
    }

    private func queueArchiveWork(_ work: ArchiveActivity, for sessionID: String) {
        guard let archiveWake else { return }
        archiveWork[sessionID] = work
        archiveWake.yield()
    }
}
