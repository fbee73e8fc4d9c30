import TokKitProtocol

/// What the registry tells the archive service about sessions in `archiveMode: always` (Docs/Archiving.md).
enum ArchiveActivity: Sendable, Equatable {
    /// The session's first live stream was published (there was none before).
    case firstStreamPublished(sessionID: String)
    /// The session's last live stream ended.
    case lastStreamEnded(sessionID: String)
}

/// The archive events of Docs/Protocol.md, 6.4: `archiveStarted` to every member when a recording starts (and to a
/// connection right after its `connected` while one runs), `archiveStopped` when it stops.
extension SessionRegistry {
    /// Archive `id` named `name` records `sessionID`: every member gets `archiveStarted`, and so will each
    /// connection that joins or resumes until ``archiveStopped(sessionID:id:)``.
    func archiveStarted(sessionID: String, id: String, name: String) {
        let event = ServerMessage.ArchiveStarted(archiveID: id, name: name)
        recordings[sessionID] = event
        broadcast(.archiveStarted(event), in: sessionID)
    }

    /// Archive `id` of `sessionID` stopped: every member gets `archiveStopped`.
    func archiveStopped(sessionID: String, id: String) {
        if recordings[sessionID]?.archiveID == id { recordings[sessionID] = nil }
        broadcast(.archiveStopped(.init(archiveID: id)), in: sessionID)
    }

    /// Sends `archiveStarted` to connection `id` when its session is being recorded (after its `connected`).
    func announceRecording(to id: String) {
        guard let sessionID = connections[id]?.membership?.sessionID, let event = recordings[sessionID] else { return }
        send(.archiveStarted(event), to: id)
    }

    /// Where ``ArchiveActivity`` goes (the archive service's loop); nil: nowhere.
    func setArchiveActivity(_ continuation: AsyncStream<ArchiveActivity>.Continuation?) {
        archiveActivity = continuation
    }

    /// Tells the archive service about a stream published in `sessionID` (only for `always` sessions).
    func noteStreamPublished(in sessionID: String) {
        guard let session = sessions[sessionID], session.description.archiveMode == .always,
              session.streamIDs.count == 1
        else { return }
        archiveActivity?.yield(.firstStreamPublished(sessionID: sessionID))
    }

    /// Tells the archive service about a stream ended in `sessionID` (only for `always` sessions).
    func noteStreamEnded(in sessionID: String) {
        guard let session = sessions[sessionID], session.description.archiveMode == .always,
              session.streamIDs.isEmpty
        else { return }
        archiveActivity?.yield(.lastStreamEnded(sessionID: sessionID))
    }
}
