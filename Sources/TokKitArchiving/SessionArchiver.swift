import Logging
import Synchronization
import struct FoundationEssentials.URL
@_spi(Recording) import TokKit
import TokKitRecording
import struct TokKitServer.RecorderCredential

/// Records a session in individual mode: joins it as a client, subscribes to every stream (those published when it
/// starts and those published later) and writes each into its own WebM file, VP8 and Opus as they arrived, never
/// decoded.
///
/// In a relayed session it is one more subscriber of each publisher (one more upload for them). Connected with a
/// hidden token (the `hidden` claim, Protocol.md section 4, which only the session server mints, for its own
/// recorder), the session's members never see it.
///
/// ```swift
/// let archiver = try await SessionArchiver.start(serverURL: url, apiKey: key, sessionID: id, token: hidden,
///                                                directory: "/var/lib/tokkit/archives/ARCHIVE")
/// …
/// let files = await archiver.stop()   // one entry per stream: its file, offset, counts
/// ```
///
/// Threading: `Sendable`; ``stop(at:)`` may be called from any task; a later call waits for the first (at most 10 s)
/// and returns the same files.
public final class SessionArchiver: Sendable {
    /// One stream's file.
    public struct StreamFile: Sendable, Hashable {
        /// The stream recorded.
        public var streamID: StreamID
        /// The WebM file, `<directory>/<streamID>.webm` (the stream id made safe for a file name).
        public var path: String
        /// When the stream's media started, from the archive's start (`nil`: it never delivered any).
        public var startOffset: Duration?
        /// Video frames written.
        public var videoFrames: Int
        /// Audio packets written.
        public var audioPackets: Int
        /// Why writing stopped early, if it did (the disk, the file).
        public var failure: String?
    }

    /// What ``start(serverURL:apiKey:sessionID:token:directory:hasAudio:hasVideo:ice:logger:)`` records.
    public let directory: String
    /// When recording started (the archive's time zero).
    public let started: ContinuousClock.Instant
    private let session: Session
    private let hasAudio: Bool
    private let hasVideo: Bool
    private let logger: Logger

    private struct Recorded {
        var archiver: StreamArchiver
        var subscriber: Subscriber?
    }

    private enum Phase { case recording, stopping, stopped([StreamFile]) }

    private struct State {
        var phase: Phase = .recording
        var streams: [StreamID: Recorded] = [:]
        var order: [StreamID] = []
        var events: Task<Void, Never>?
        /// The archive time recording ends at (``end(at:)``), for streams that come later.
        var end: Duration?
    }

    private let state = Mutex(State())

    private init(session: Session, directory: String, hasAudio: Bool, hasVideo: Bool, logger: Logger) {
        self.session = session
        self.directory = directory
        self.hasAudio = hasAudio
        self.hasVideo = hasVideo
        self.logger = logger
        started = .now
    }

    /// The receive batching of the archiver's media connections unless ``start(serverURL:apiKey:sessionID:token:directory:hasAudio:hasVideo:ice:receiveBatching:credential:logger:)``
    /// is given another: 40 ms. The network thread of each subscription then wakes about 25 times a second instead
    /// of once per datagram, which was half of a lone recorded stream's CPU (Docs/Archiving.md, "Benchmark"). It is
    /// safe for a recorder: the packets' arrival times are the kernel's receive timestamps (the publisher's bandwidth
    /// estimate is fed true arrival times; not through a TURN relay of the archiver's own, whose socket libnice does
    /// not give out), and what the recorder sends back (transport-wide feedback, receiver
    /// reports, NACKs, PLIs) leaves up to one interval later, which its jitter buffer's depth allows for.
    public static let defaultReceiveBatching: Duration? = .milliseconds(40)

    /// Connects to the session and starts recording every stream into `directory` (which must exist).
    ///
    /// - Parameters:
    ///   - ice: how the archiver's media connections gather candidates (every interface by default); its
    ///     ``ICEConfiguration/receiveBatching`` is replaced by `receiveBatching`.
    ///   - receiveBatching: the media connections' receive batching (``ICEConfiguration/receiveBatching``),
    ///     ``defaultReceiveBatching`` unless given (`nil`: none).
    ///   - credential: a server's recorder credential, shown in its signaling WebSocket upgrade (nil: none).
    /// - Throws: ``SessionError`` when the session cannot be joined.
    public static func start(
        serverURL: URL, apiKey: String, sessionID: SessionID, token: String, directory: String,
        hasAudio: Bool = true, hasVideo: Bool = true, ice: ICEConfiguration = .allInterfaces,
        receiveBatching: Duration? = SessionArchiver.defaultReceiveBatching,
        credential: RecorderCredential? = nil, logger: Logger = Logger(label: "tokkit.archiver")
    ) async throws(SessionError) -> SessionArchiver {
        guard hasAudio || hasVideo else { throw .invalidParameter("an archive needs audio, video or both") }
        var ice = ice
        ice.receiveBatching = receiveBatching
        var settings = SessionSettings()
        settings.logger = logger
        settings.signalingHeaders = credential?.headerFields ?? [:]
        let session = Session(apiKey: apiKey, sessionID: sessionID, serverURL: serverURL, settings: settings)
        session.mediaNegotiator = WebRTCNegotiator(ice: ice)
        let archiver = SessionArchiver(session: session, directory: directory, hasAudio: hasAudio, hasVideo: hasVideo,
                                       logger: logger)
        let events = session.events
        try await session.connect(token: token)
        let task = Task { [weak archiver] in
            for await event in events {
                guard let archiver else { return }
                switch event {
                case .streamCreated(let stream): await archiver.record(stream)
                case .streamDestroyed(let stream): archiver.streamEnded(stream.streamID)
                case .disconnected: return
                default: break
                }
            }
        }
        archiver.state.withLock { $0.events = task }
        for stream in session.streams.values.sorted(by: { $0.creationTime < $1.creationTime }) {
            await archiver.record(stream)
        }
        return archiver
    }

    /// Stops recording: ends every subscription, finishes every file (cues and duration written) and leaves the
    /// session. Returns the files, in the order their streams were first seen. Nothing placed after `instant` (by
    /// default the call's; a later one counts as now) is written, though media keeps arriving while the
    /// subscriptions end.
    public func stop(at instant: ContinuousClock.Instant = .now) async -> [StreamFile] {
        end(at: instant)
        let taken: ([Recorded], Task<Void, Never>?)? = state.withLock { s in
            guard case .recording = s.phase else { return nil }
            s.phase = .stopping
            return (s.order.compactMap { s.streams[$0] }, s.events)
        }
        guard let (recorded, events) = taken else { return await finished() }
        for r in recorded {
            if let subscriber = r.subscriber { try? await session.unsubscribe(subscriber) }
        }
        await session.disconnect()
        events?.cancel()
        let files = recorded.map { r in Self.finish(r.archiver) }
        state.withLock { $0.phase = .stopped(files) }
        return files
    }

    /// Recording ends at `instant` (a later one counts as now; the earliest of several calls holds): nothing
    /// placed after it is written, though streams keep delivering until ``stop(at:)`` has ended the
    /// subscriptions. Quick and non-blocking.
    public func end(at instant: ContinuousClock.Instant) {
        let end = max(.zero, min(instant, .now) - started)
        let archivers = state.withLock { s in
            s.end = min(s.end ?? end, end)
            return s.streams.values.map(\.archiver)
        }
        for archiver in archivers { archiver.stop(at: end) }
    }

    /// The files of a stop that already ran (or is running: waits for it, bounded).
    private func finished() async -> [StreamFile] {
        for _ in 0..<200 {
            if case .stopped(let files) = state.withLock({ $0.phase }) { return files }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return []
    }

    private static func finish(_ archiver: StreamArchiver) -> StreamFile {
        archiver.flush()
        var failure = archiver.failure.map { "\($0)" }
        do throws(RecordingError) { try archiver.writer.close() } catch { failure = failure ?? "\(error)" }
        let counters = archiver.writer.counters
        return StreamFile(
            streamID: archiver.streamID, path: archiver.writer.path, startOffset: archiver.startOffset,
            videoFrames: counters.videoFramesWritten, audioPackets: counters.audioPacketsWritten, failure: failure)
    }

    /// Subscribes to `stream` with a file of its own, once.
    private func record(_ stream: SessionStream) async {
        let id = stream.streamID
        let fresh: StreamArchiver? = state.withLock { s in
            guard case .recording = s.phase, s.streams[id] == nil else { return nil }
            // Two ids may reduce to one name (`a.b`, `a_b`): the later stream's file gets its place as a suffix.
            var path = "\(directory)/\(Self.fileName(id)).webm"
            if s.streams.values.contains(where: { $0.archiver.writer.path == path }) {
                path = "\(directory)/\(Self.fileName(id))-\(s.order.count).webm"
            }
            // The Opus track's pre-skip (Matroska CodecDelay) is the publisher encoder's lookahead: decoded audio
            // comes 6.5 ms after its packet's RTP timestamp, and a player takes the delay off every block's time,
            // so that sound plays with the pictures captured with it.
            let configuration = WebMWriter.Configuration(
                video: hasVideo && stream.hasVideo ? .init() : nil,
                audio: hasAudio && stream.hasAudio
                    ? .init(channels: 1, preSkip: Int(ComposedStreamInput.senderLookahead)) : nil)
            guard configuration.hasVideo || configuration.hasAudio,
                  let writer = try? WebMWriter(path: path, configuration: configuration)
            else { return nil }
            let archiver = StreamArchiver(streamID: id, writer: writer, archiveStart: started)
            if let end = s.end { archiver.stop(at: end) }
            s.streams[id] = Recorded(archiver: archiver, subscriber: nil)
            s.order.append(id)
            return archiver
        }
        guard let fresh else { return }
        let subscriber = Subscriber(stream: stream, receiver: fresh, subscribeToAudio: fresh.writer.configuration.hasAudio,
                                    subscribeToVideo: fresh.writer.configuration.hasVideo)
        state.withLock { $0.streams[id]?.subscriber = subscriber }
        do throws(SessionError) {
            try await session.subscribe(subscriber)
        } catch {
            logger.warning("archive could not subscribe to stream \(id): \(error)")
        }
    }

    /// A recorded stream ended: its subscription is gone; its file is finished at ``stop(at:)``.
    private func streamEnded(_ id: StreamID) {
        state.withLock { $0.streams[id]?.subscriber = nil }
    }

    /// `id` with every character but letters, digits, `-` and `_` replaced by `_` (a stream id is the server's,
    /// but a file name must never climb out of the archive's directory).
    static func fileName(_ id: StreamID) -> String {
        String(id.rawValue.unicodeScalars.map { s in
            (s.isASCII && (s.properties.isAlphabetic || ("0"..."9").contains(s) || s == "-" || s == "_"))
                ? Character(s) : "_"
        }.prefix(128))
    }
}
