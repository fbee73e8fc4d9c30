import Synchronization
@_spi(Recording) import TokKit
import TokKitPeer
import TokKitRTP
import TokKitRecording

/// Records one subscribed stream into its own WebM file, without decoding: the ``EncodedMediaReceiver`` of a
/// ``Subscriber`` that the ``SessionArchiver`` makes for each stream (individual output mode).
///
/// Packets go to one ``RTPStreamRecorder`` per kind, sharing one ``WebMWriter``. A media connection that replaces
/// another (an ICE restart) gets fresh recorders placed at the time it started, on the same file. Key frames are
/// asked for when the recorder needs one (the first, or after a loss the connection could not repair), at most
/// every ``keyFrameRequestInterval``.
///
/// Threading: packets arrive on the connection's network thread; each kind's recorder is used under its own lock.
final class StreamArchiver: EncodedMediaReceiver {
    /// The stream recorded.
    let streamID: StreamID
    /// Where the file is.
    let writer: WebMWriter
    /// When the archive started: the stream's frames are placed on that timeline.
    let archiveStart: ContinuousClock.Instant
    /// When the stream's first media connection started, from the archive's start.
    var startOffset: Duration? { state.withLock { $0.firstStart } }

    static let keyFrameRequestInterval: Duration = .milliseconds(300)

    private struct State {
        var source: EncodedMediaSource?
        var firstStart: Duration?
        var lastKeyFrameRequest: ContinuousClock.Instant?
        var failure: RecordingError?
    }

    /// The recorders of the current media connection, used only under `recording` (hence `@unchecked Sendable`).
    private final class Recorders: @unchecked Sendable {
        var audio: RTPStreamRecorder?
        var video: RTPStreamRecorder?
    }

    private let state = Mutex(State())
    private let recorders = Recorders()
    private let recording = Mutex(())

    init(streamID: StreamID, writer: WebMWriter, archiveStart: ContinuousClock.Instant) {
        self.streamID = streamID
        self.writer = writer
        self.archiveStart = archiveStart
    }

    func encodedMediaDidStart(_ source: EncodedMediaSource) {
        let offset = ContinuousClock.now - archiveStart
        state.withLock { s in
            s.source = source
            if s.firstStart == nil { s.firstStart = offset }
        }
        let configuration = writer.configuration
        let audio = configuration.hasAudio ? try? RTPStreamRecorder(media: .opus, writer: writer, startOffset: offset) : nil
        let video = configuration.hasVideo ? try? RTPStreamRecorder(media: .vp8, writer: writer, startOffset: offset) : nil
        recording.withLock { _ in
            recorders.audio = audio
            recorders.video = video
        }
    }

    func receive(_ packet: borrowing RTPPacketView, kind: MediaKind) {
        let view = copy packet  // a few words (the view points at the network thread's buffer, valid for this call)
        do throws(RecordingError) {
            let keyFrameNeeded = try recording.withLock { (_) throws(RecordingError) -> Bool in
                switch kind {
                case .audio: try recorders.audio?.receive(view) ?? false
                case .video: try recorders.video?.receive(view) ?? false
                }
            }
            if keyFrameNeeded { requestKeyFrame() }
        } catch {
            state.withLock { if $0.failure == nil { $0.failure = error } }
        }
    }

    func encodedMediaDidStop(_ source: EncodedMediaSource) {
        state.withLock { s in
            if let current = s.source, current.isSame(as: source) { s.source = nil }
        }
    }

    /// The first writer failure (the disk, the file), if any: recording of this stream stopped then.
    var failure: RecordingError? { state.withLock { $0.failure } }

    /// Counts of both recorders.
    var counters: (audio: RTPStreamRecorder.Counters?, video: RTPStreamRecorder.Counters?) {
        recording.withLock { _ in (recorders.audio?.counters, recorders.video?.counters) }
    }

    private func requestKeyFrame(now: ContinuousClock.Instant = .now) {
        let source: EncodedMediaSource? = state.withLock { s in
            if let last = s.lastKeyFrameRequest, now - last < Self.keyFrameRequestInterval { return nil }
            guard let source = s.source else { return nil }
            s.lastKeyFrameRequest = now
            return source
        }
        source?.requestKeyframe()
    }
}
