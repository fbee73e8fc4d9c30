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
/// Audio/video sync: audio is placed from the time its connection started (its first packet there). Video is
/// placed from audio through the publisher's RTCP sender reports (``SenderTimeAnchor``): a video frame lands where
/// the audio captured at the same instant on the publisher's clock is, whatever the two streams' first-packet
/// arrival times were. So the video recorder starts only once both streams' first sender reports arrived (about a
/// second after the connection came up; video packets before are dropped, and the first frame written is the next
/// key frame, asked for then). A publisher that sends no sender report within ``senderReportWait`` has its video
/// placed by arrival instead (the best left); so has video without audio. Once placed through the reports, both
/// streams follow the publisher's later reports (``SenderClockFollower``): when a report's mapping moved (a TokKit
/// sender's audio origin moves with its capture clock estimate; a sound card drifts), the stream's later frames
/// move by as much, gradually (1 % of media time, ``StreamTimeline/follow(correction:)``), so that the written times
/// stay in order. The reports are read every ``senderReportCheckPackets`` packets (two short locks).
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
    /// How long video waits for the sender reports that synchronise it with audio.
    static let senderReportWait: Duration = .seconds(3)
    /// Packets (both kinds) between two reads of the sender reports once synchronised: about 0.4 s at 80 packets a
    /// second; reports come every second.
    static let senderReportCheckPackets = 32

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
        /// The connection the recorders are for, its start on the archive's timeline and as an instant.
        var source: EncodedMediaSource?
        var startOffset = Duration.zero
        var started = ContinuousClock.now
        /// The first audio packet's RTP timestamp (placed at `startOffset`).
        var firstAudioTimestamp: UInt32?
        /// Video waits for sender reports to be placed from audio.
        var videoWaitsForSync = false
        /// Video packets dropped while waiting.
        var videoPacketsBeforeSync = 0
        /// The archive time recording was asked to stop at (``StreamArchiver/stop(at:)``), for recorders made later.
        var end: Duration?
        /// Once video is placed through the sender reports: each stream's follower of its later reports, and the
        /// recorder's restart count then (a restarted stream is placed by arrival: not followed any more).
        var audioFollower: SenderClockFollower?
        var videoFollower: SenderClockFollower?
        var restartsAtSync = (audio: 0, video: 0)
        var packetsSinceReportCheck = 0
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
        let audio = configuration.hasAudio
            ? try? RTPStreamRecorder(media: .opus, writer: writer, startOffset: offset, arrivalOffset: arrivalOffset) : nil
        // With audio, video is made once it can be placed from audio (see the type's comment).
        let video = configuration.hasVideo && audio == nil
            ? try? RTPStreamRecorder(media: .vp8, writer: writer, startOffset: offset, arrivalOffset: arrivalOffset) : nil
        recording.withLock { _ in
            if let end = recorders.end {
                audio?.stop(at: end)
                video?.stop(at: end)
            }
            recorders.audio = audio
            recorders.video = video
            recorders.source = source
            recorders.startOffset = offset
            recorders.started = archiveStart + offset
            recorders.firstAudioTimestamp = nil
            recorders.videoWaitsForSync = configuration.hasVideo && audio != nil
            recorders.videoPacketsBeforeSync = 0
            recorders.audioFollower = nil
            recorders.videoFollower = nil
            recorders.packetsSinceReportCheck = 0
        }
    }

    func receive(_ packet: borrowing RTPPacketView, kind: MediaKind) {
        let view = copy packet  // a few words (the view points at the network thread's buffer, valid for this call)
        do throws(RecordingError) {
            let keyFrameNeeded = try recording.withLock { (_) throws(RecordingError) -> Bool in
                if recorders.audioFollower != nil || recorders.videoFollower != nil {
                    recorders.packetsSinceReportCheck += 1
                    if recorders.packetsSinceReportCheck >= Self.senderReportCheckPackets {
                        recorders.packetsSinceReportCheck = 0
                        followSenderReports()
                    }
                }
                switch kind {
                case .audio:
                    if recorders.firstAudioTimestamp == nil, recorders.audio != nil { recorders.firstAudioTimestamp = view.timestamp }
                    return try recorders.audio?.receive(view) ?? false
                case .video:
                    if recorders.videoWaitsForSync {
                        guard let offset = videoStart(timestamp: view.timestamp) else {
                            recorders.videoPacketsBeforeSync += 1
                            return false
                        }
                        recorders.videoWaitsForSync = false
                        recorders.video = try? RTPStreamRecorder(media: .vp8, writer: writer, startOffset: offset,
                                                                 arrivalOffset: arrivalOffset)
                        if let end = recorders.end { recorders.video?.stop(at: end) }
                    }
                    return try recorders.video?.receive(view) ?? false
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

    /// Where a video packet of RTP timestamp `timestamp` goes on the archive's timeline, once it can be placed
    /// from audio through both streams' sender reports; after ``senderReportWait`` without them, by its arrival.
    /// `nil`: not yet. Called under `recording`, for video packets only while waiting (a lock and two small reads
    /// per packet, nothing allocated).
    private func videoStart(timestamp: UInt32) -> Duration? {
        if let source = recorders.source, let first = recorders.firstAudioTimestamp,
           let audio = source.senderReport(.audio), let video = source.senderReport(.video) {
            let audioClock = SenderClock(ntp: audio.ntp, rtpTimestamp: audio.rtpTimestamp, clockRate: 48_000)
            let videoClock = SenderClock(ntp: video.ntp, rtpTimestamp: video.rtpTimestamp, clockRate: 90_000)
            let anchor = SenderTimeAnchor(offset: recorders.startOffset, timestamp: first, clock: audioClock)
            let offset = anchor.offset(of: timestamp, on: videoClock)
            // A report that puts video far from audio is not believable (a sender clock jump): place by arrival.
            let arrival = ContinuousClock.now - archiveStart
            guard abs((offset - arrival) / .seconds(1)) < 5 else { return arrival }
            // Audio was placed by its RTP time, as `audioClock` maps it; video is placed by `videoClock`: both
            // follow later reports from here.
            recorders.audioFollower = SenderClockFollower(reference: audioClock)
            recorders.videoFollower = SenderClockFollower(reference: videoClock)
            recorders.restartsAtSync = (recorders.audio?.counters.restarts ?? 0, 0)
            recorders.packetsSinceReportCheck = 0
            return offset
        }
        let now = ContinuousClock.now
        return now - recorders.started >= Self.senderReportWait ? now - archiveStart : nil
    }

    /// Reads both streams' latest sender reports and moves each recorder's placement by how far its report's
    /// mapping moved since sync (``SenderClockFollower``). A stream restarted since (new SSRC, placed by its
    /// arrival) is not followed any more. Called under `recording`; nothing allocated.
    private func followSenderReports() {
        guard let source = recorders.source else { return }
        recorders.audioFollower = follow(recorders.audioFollower, recorders.audio, .audio, clockRate: 48_000,
                                         restartsAtSync: recorders.restartsAtSync.audio, source: source)
        recorders.videoFollower = follow(recorders.videoFollower, recorders.video, .video, clockRate: 90_000,
                                         restartsAtSync: recorders.restartsAtSync.video, source: source)
    }

    /// One stream's step of ``followSenderReports()``: `follower` after `kind`'s latest report from `source` moved
    /// `recorder`'s placement; nil (not followed any more) when the recorder restarted since sync.
    private func follow(_ follower: SenderClockFollower?, _ recorder: RTPStreamRecorder?, _ kind: MediaKind,
                        clockRate: Int, restartsAtSync: Int, source: EncodedMediaSource) -> SenderClockFollower? {
        guard var follower, let recorder else { return follower }
        guard recorder.counters.restarts == restartsAtSync else { return nil }
        guard let report = source.senderReport(kind) else { return follower }
        let clock = SenderClock(ntp: report.ntp, rtpTimestamp: report.rtpTimestamp, clockRate: clockRate)
        if let shift = follower.shift(after: clock) { recorder.follow(correction: shift) }
        return follower
    }

    /// The corrections applied to the last frames written of each stream (following the sender reports).
    var corrections: (audio: Duration?, video: Duration?) {
        recording.withLock { _ in (recorders.audio?.correction, recorders.video?.correction) }
    }

    /// Recording was asked to stop at `end` on the archive's timeline: from now on nothing placed after it is
    /// written, whatever still arrives while the archive unsubscribes and closes the file.
    func stop(at end: Duration) {
        recording.withLock { _ in
            recorders.end = min(recorders.end ?? end, end)
            recorders.audio?.stop(at: end)
            recorders.video?.stop(at: end)
        }
    }

    /// Where a packet arriving now sits on the archive's timeline (a restarted stream is placed there).
    private var arrivalOffset: () -> Duration {
        { [archiveStart] in ContinuousClock.now - archiveStart }
    }

    /// Writes the audio the recorder's reorder window still holds; call before closing the file.
    func flush() {
        do throws(RecordingError) {
            try recording.withLock { (_) throws(RecordingError) in try recorders.audio?.flush() }
        } catch {
            state.withLock { if $0.failure == nil { $0.failure = error } }
        }
    }

    /// Video packets dropped while waiting for the sender reports of the current connection.
    var videoPacketsBeforeSync: Int { recording.withLock { _ in recorders.videoPacketsBeforeSync } }

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
