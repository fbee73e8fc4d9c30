import Dispatch
import Logging
import Synchronization
import struct FoundationEssentials.URL
@_spi(Recording) import TokKit
import TokKitMedia
import TokKitRecording
import struct TokKitServer.RecorderCredential

/// Records a session in composed mode: joins it as a client, subscribes to every stream (those published when it
/// starts and those published later), decodes them, and writes ONE WebM file: every stream's video laid out in a
/// grid on one canvas re-encoded in VP8, and every stream's audio mixed into one Opus track.
///
/// ```swift
/// let archiver = try await ComposedArchiver.start(serverURL: url, apiKey: key, sessionID: id, token: hidden,
///                                                 path: "/var/lib/tokkit/archives/ARCHIVE.webm",
///                                                 settings: ComposedArchiveSettings(width: 1280, height: 720))
/// …
/// let result = await archiver.stop()   // the file, its duration, frames, each stream's join and leave
/// ```
///
/// How:
/// - Each stream has a ``ComposedStreamInput`` (an encoded subscriber's receiver): VP8 decoded as frames complete,
///   Opus held in a jitter buffer.
/// - One named thread (`tk-archive-compose`, a ``PeriodicThread`` every 10 ms) follows a ``CompositionClock`` on the
///   archive's clock: every 20 ms it mixes one period of every stream's audio and encodes it in Opus; every frame
///   interval it draws the streams' newest pictures with ``CanvasCompositor`` in the ``CompositionLayout`` for
///   the streams that have a picture (recomputed as they come and go, each change recorded) and encodes the canvas
///   once in VP8. Both go to one ``WebMWriter`` stamped with their scheduled times, so audio and video share one
///   timeline.
/// - A stream takes a tile from its first decoded picture until its stream is destroyed. Then its input (decoders,
///   jitter buffer, picture) is released; only its ``StreamSpan`` is kept for the result.
///
/// Threading: `Sendable`; ``stop(at:)`` may be called from any task; a later call waits for the first (at most 10 s)
/// and returns the same result. Closing the file runs off the cooperative pool.
public final class ComposedArchiver: Sendable {
    /// One stream's presence in the archive.
    public struct StreamSpan: Sendable, Hashable {
        /// The stream.
        public var streamID: StreamID
        /// When the archiver saw it, from the archive's start (zero for a stream there at the start).
        public var joined: Duration
        /// When it was destroyed, from the archive's start (`nil`: still there at the stop).
        public var left: Duration?
        /// When its first picture was decoded (`nil`: none was, e.g. audio only).
        public var firstPicture: Duration?
        /// Video frames of the stream decoded.
        public var framesDecoded: Int
    }

    /// One layout in force from `at` on.
    public struct LayoutChange: Sendable, Hashable {
        /// When it took effect: the time of the first frame drawn with it, on the archive's timeline.
        public var at: Duration
        /// The streams shown, tile by tile (row by row).
        public var streams: [StreamID]
    }

    /// What ``stop(at:)`` returns.
    public struct Result: Sendable, Hashable {
        /// The WebM file.
        public var path: String
        /// The end of the last frame or packet written.
        public var duration: Duration
        /// Canvas frames written.
        public var videoFrames: Int
        /// Opus packets written.
        public var audioPackets: Int
        /// Audio periods in which some stream was heard.
        public var audiblePeriods: Int
        /// Canvas frames and audio periods skipped because composing ran late.
        public var videoFramesSkipped: Int, audioPeriodsSkipped: Int
        /// Every stream seen, in the order they came.
        public var streams: [StreamSpan]
        /// Every layout, in order (the first: the first frame's).
        public var layoutChanges: [LayoutChange]
        /// Why recording stopped early or the file could not be finished, if so.
        public var failure: String?
    }

    /// The file written.
    public let path: String
    /// What is recorded.
    public let settings: ComposedArchiveSettings
    /// The archive's time zero.
    public let started: ContinuousClock.Instant
    private let session: Session
    private let composer: ArchiveComposer
    private let logger: Logger

    private struct Recorded {
        var input: ComposedStreamInput
        var subscriber: Subscriber?
    }

    private enum Phase { case recording, stopping, stopped(Result) }

    private struct State {
        var phase: Phase = .recording
        /// The streams recorded now.
        var streams: [StreamID: Recorded] = [:]
        /// The streams that ended: what the result says of them (their inputs are released).
        var ended: [StreamID: StreamSpan] = [:]
        var order: [StreamID] = []
        var events: Task<Void, Never>?
        var thread: PeriodicThread?
    }

    private let state = Mutex(State())
    /// The streams composed now, in the order they came (read by the composing thread every tick).
    private let active = Mutex<[any ComposerInput]>([])
    /// Counts this archiver's stream inputs alive (``liveInputs``).
    private let inputs = ComposedStreamInput.Tally()
    /// The archive time ``stop(at:)`` was asked at (read by the composing thread every tick): nothing after it is made.
    private let end = Mutex<Duration?>(nil)

    private init(session: Session, path: String, settings: ComposedArchiveSettings, composer: ArchiveComposer,
                 logger: Logger) {
        self.session = session
        self.path = path
        self.settings = settings
        self.composer = composer
        self.logger = logger
        started = .now
    }

    /// Connects to the session and starts recording every stream into one WebM file at `path` (its directory must
    /// exist; the file is truncated).
    ///
    /// - Parameters:
    ///   - settings: resolution, frame rate, `hasAudio`/`hasVideo`, bitrates.
    ///   - ice: how the archiver's media connections gather candidates (every interface by default).
    ///   - credential: a server's recorder credential, shown in its signaling WebSocket upgrade (nil: none).
    /// - Throws: ``ComposedArchiveError/invalidSettings(_:)`` (nothing started),
    ///   ``ComposedArchiveError/recording(_:)`` when the file cannot be created, ``ComposedArchiveError/codec(_:)``,
    ///   ``ComposedArchiveError/session(_:)`` when the session cannot be joined (the file is then left empty).
    public static func start(
        serverURL: URL, apiKey: String, sessionID: SessionID, token: String, path: String,
        settings: ComposedArchiveSettings = ComposedArchiveSettings(), ice: ICEConfiguration = .allInterfaces,
        credential: RecorderCredential? = nil, logger: Logger = Logger(label: "tokkit.archiver.composed")
    ) async throws(ComposedArchiveError) -> ComposedArchiver {
        let composer = try ArchiveComposer(path: path, settings: settings)
        var sessionSettings = SessionSettings()
        sessionSettings.logger = logger
        sessionSettings.signalingHeaders = credential?.headerFields ?? [:]
        let session = Session(apiKey: apiKey, sessionID: sessionID, serverURL: serverURL, settings: sessionSettings)
        session.mediaNegotiator = WebRTCNegotiator(ice: ice)
        let events = session.events
        do throws(SessionError) {
            try await session.connect(token: token)
        } catch {
            _ = composer.finish()
            throw .session(error)
        }
        let archiver = ComposedArchiver(session: session, path: path, settings: settings, composer: composer,
                                        logger: logger)
        archiver.startComposing()
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

    /// Stops recording: ends every subscription, leaves the session, stops the composing thread and finishes the
    /// file (cues and duration written). Nothing scheduled after `instant` (by default the call's; a later one
    /// counts as now) is made, though the composing thread runs until the subscriptions have ended.
    public func stop(at instant: ContinuousClock.Instant = .now) async -> Result {
        end(at: instant)
        let taken: ([Recorded], [StreamID], Task<Void, Never>?, PeriodicThread?)? = state.withLock { s in
            guard case .recording = s.phase else { return nil }
            s.phase = .stopping
            return (s.order.compactMap { s.streams[$0] }, s.order, s.events, s.thread)
        }
        guard let (recorded, order, events, thread) = taken else { return await finished() }
        for r in recorded {
            if let subscriber = r.subscriber { try? await session.unsubscribe(subscriber) }
        }
        await session.disconnect()
        events?.cancel()
        // Joining the thread and writing the file's end block: done on a Dispatch thread, not the cooperative pool.
        let composer = self.composer
        let failure: String? = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                thread?.stop()
                continuation.resume(returning: composer.finish())
            }
        }
        let counters = composer.counters
        let spans: [StreamSpan] = state.withLock { s in
            order.compactMap { id in s.ended[id] ?? s.streams[id].map { Self.span(of: $0.input) } }
        }
        let result = Result(
            path: path, duration: counters.duration, videoFrames: counters.videoFrames,
            audioPackets: counters.audioPackets, audiblePeriods: counters.audiblePeriods,
            videoFramesSkipped: counters.videoFramesSkipped, audioPeriodsSkipped: counters.audioPeriodsSkipped,
            streams: spans, layoutChanges: composer.layoutChanges, failure: failure)
        state.withLock { $0.phase = .stopped(result) }
        return result
    }

    /// What the result says of the stream `input` records.
    private static func span(of input: ComposedStreamInput) -> StreamSpan {
        let video = input.videoCounts
        return StreamSpan(streamID: input.streamID, joined: input.joined, left: input.left,
                          firstPicture: video.firstPicture, framesDecoded: video.decoded)
    }

    /// Streams recorded now (each holds its decoders and buffers until its stream ends).
    var liveStreamCount: Int { state.withLock { $0.streams.count } }

    /// This archiver's stream inputs still alive (not yet deallocated): an ended stream's leaves with its decoders.
    var liveInputs: Int { inputs.live.load(ordering: .relaxed) }

    /// Recording ends at `instant` (a later one counts as now; the earliest of several calls holds): nothing
    /// scheduled after it is composed, though the thread runs until ``stop(at:)`` has ended the subscriptions.
    /// Quick and non-blocking.
    public func end(at instant: ContinuousClock.Instant) {
        let asked = max(.zero, min(instant, .now) - started)
        end.withLock { $0 = min($0 ?? asked, asked) }
    }

    /// The result of a stop that already ran (or is running: waits for it, bounded).
    private func finished() async -> Result {
        for _ in 0..<200 {
            if case .stopped(let result) = state.withLock({ $0.phase }) { return result }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return Result(path: path, duration: .zero, videoFrames: 0, audioPackets: 0, audiblePeriods: 0,
                      videoFramesSkipped: 0, audioPeriodsSkipped: 0, streams: [], layoutChanges: [],
                      failure: "the first stop did not finish within 10 s")
    }

    /// Starts the composing thread.
    private func startComposing() {
        let thread = PeriodicThread(name: "tk-archive-compose", interval: .milliseconds(10)) { [weak self] in
            guard let self else { return false }
            let inputs = active.withLock { $0 }
            let end = end.withLock { $0 }
            guard composer.advance(to: ContinuousClock.now - started, inputs: inputs, end: end) else {
                logger.error("composed archive stopped writing: \(composer.failure ?? "?")")
                return false
            }
            return true
        }
        state.withLock { $0.thread = thread }
    }

    /// Subscribes to `stream` and composes it, once.
    private func record(_ stream: SessionStream) async {
        let id = stream.streamID
        let fresh: ComposedStreamInput? = state.withLock { s in
            guard case .recording = s.phase, s.streams[id] == nil, s.ended[id] == nil else { return nil }
            let input = ComposedStreamInput(streamID: id, archiveStart: started, tally: inputs, logger: logger)
            s.streams[id] = Recorded(input: input, subscriber: nil)
            s.order.append(id)
            // Composed from now, under the state lock: a ``streamEnded(_:)`` (which removes it from `active` after
            // taking it out of the state) cannot come in between and leave it there with its decoders.
            // Lock order: `state`, then `active`; never the reverse.
            active.withLock { $0.append(input) }
            return input
        }
        guard let fresh else { return }
        let subscriber = Subscriber(stream: stream, receiver: fresh, subscribeToAudio: settings.hasAudio && stream.hasAudio,
                                    subscribeToVideo: settings.hasVideo && stream.hasVideo)
        state.withLock { $0.streams[id]?.subscriber = subscriber }
        do throws(SessionError) {
            try await session.subscribe(subscriber)
        } catch {
            logger.warning("composed archive could not subscribe to stream \(id): \(error)")
        }
    }

    /// A stream ended: it leaves the layout and the mix now, and its input (decoders, buffers) is released: only
    /// its span is kept. (While stopping, it stays for ``stop()`` to report.)
    private func streamEnded(_ id: StreamID) {
        let offset = ContinuousClock.now - started
        let input: ComposedStreamInput? = state.withLock { s in
            guard let input = s.streams[id]?.input else { return nil }
            input.leave(at: offset)
            if case .recording = s.phase {
                s.streams[id] = nil
                s.ended[id] = Self.span(of: input)
            } else {
                s.streams[id]?.subscriber = nil
            }
            return input
        }
        guard let input else { return }
        active.withLock { list in list.removeAll { $0 === input } }
    }
}
