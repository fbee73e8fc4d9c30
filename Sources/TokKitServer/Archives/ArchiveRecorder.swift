/// The seam between the archive service and the recorder that joins a session (TokKitServer does not depend on the
/// client stack): `tokkit-server` wires in TokKitArchiving's `ServerArchiveRecorder`; tests wire in a fake.
public protocol ArchiveRecorderFactory: Sendable {
    /// Joins the session described by `request` and starts recording into `request.directory` (which exists).
    /// Returns once recording runs.
    /// - Throws: ``ArchiveRecorderError/unsupportedOutputMode(_:)`` for a mode it cannot record, or
    ///   ``ArchiveRecorderError/failed(_:)`` when it cannot join.
    func start(_ request: ArchiveRecordingRequest) async throws(ArchiveRecorderError) -> any ArchiveRecording
}

/// A running recording.
public protocol ArchiveRecording: Sendable {
    /// Stops recording, finishes every file and leaves the session; what was written. Called once.
    func stop() async -> ArchiveRecordingResult
    /// The archive API's stop was called at `instant`: nothing captured after it may be written, though ``stop()``
    /// comes later (once the stopped record is saved and the members told, a large part of a second under load)
    /// and media keeps flowing until then. Quick and non-blocking: called on the service's actor. By default,
    /// nothing (the files then end at ``stop()``).
    func end(at instant: ContinuousClock.Instant)
}

extension ArchiveRecording {
    /// Nothing: a recorder whose files end at ``stop()``.
    public func end(at instant: ContinuousClock.Instant) {}
}

/// What a recorder is asked to record.
public struct ArchiveRecordingRequest: Sendable, Hashable {
    /// The server's base URL (`http://127.0.0.1:PORT`).
    public var serverURL: String
    /// The project's API key.
    public var apiKey: String
    /// The session to join.
    public var sessionID: String
    /// A hidden subscriber token for it (the members never see the recorder).
    public var token: String
    /// The archive's own directory; the recorder writes its files there.
    public var directory: String
    /// Individual or composed.
    public var outputMode: ArchiveOutputMode
    /// Record audio.
    public var hasAudio: Bool
    /// Record video.
    public var hasVideo: Bool
    /// `WIDTHxHEIGHT` (composed mode's layout).
    public var resolution: String
    /// The server's recorder credential, sent with the recorder's signaling WebSocket upgrade
    /// (``RecorderCredential/headerFields``): with it its connections do not count against the per-address
    /// connection limits. Secret (redacted when printed); nil: none.
    public var credential: RecorderCredential?
}

/// Why a recorder did not start.
public enum ArchiveRecorderError: Error, Sendable, Equatable {
    /// The recorder cannot record this output mode.
    case unsupportedOutputMode(ArchiveOutputMode)
    /// It could not join or record the session.
    case failed(String)
}

/// What a stopped recording wrote.
public struct ArchiveRecordingResult: Sendable, Hashable {
    /// One written file.
    public struct File: Sendable, Hashable {
        /// The stream it records (composed mode: a name of the recorder's choice).
        public var streamID: String
        /// Its path, inside the request's directory.
        public var path: String
        /// When the stream's media started from the archive's start (nil: never).
        public var startOffset: Duration?
        /// Why writing it stopped early, if it did.
        public var failure: String?

        /// A written file.
        public init(streamID: String, path: String, startOffset: Duration?, failure: String? = nil) {
            self.streamID = streamID
            self.path = path
            self.startOffset = startOffset
            self.failure = failure
        }
    }

    /// The files, in the order their streams were first seen.
    public var files: [File]
    /// The recording's length as written in its file (composed mode); `nil`: the service keeps the time between
    /// start and stop.
    public var duration: Duration?

    /// A result.
    public init(files: [File], duration: Duration? = nil) {
        self.files = files
        self.duration = duration
    }
}
