import TokKitRTP

/// Records one received RTP stream (SRTP already removed) into a ``WebMWriter``, without decoding: VP8 packets are
/// reassembled into frames by ``VP8FrameAssembler`` (reordering, duplicates, retransmissions and loss handled
/// there), Opus payloads are written as they are.
///
/// Each frame's RTP timestamp is placed on the archive's timeline by a ``StreamTimeline`` (90 kHz for VP8, 48 kHz
/// for Opus, 32-bit wraparound, the stream's first packet at `startOffset`); video waits for a first key frame;
/// frames that do not move forward are dropped. When the assembler gives up a frame or is waiting for a key frame,
/// ``receive(_:)`` returns `true`: the caller should send the publisher a PLI. Opus packets pass an
/// ``OpusReorderWindow`` first (three packets): one that arrives a little after its successor is placed, not
/// dropped; ``flush()`` writes what it holds before the file is closed.
///
/// Feed it the packets of one stream (one payload type, RTX already unwrapped); several recorders (the audio and
/// the video of one published stream) may share one writer. When the SSRC changes (the publisher restarted its
/// stream: new timestamps, new sequence numbers), the recorder re-anchors: the new stream's first packet is placed
/// at its arrival (`arrivalOffset`, or right after the last frame written without it), never before the last frame
/// written, and video waits for a key frame again.
///
/// Threading: not thread-safe; use it from one thread (the receive thread of its stream). Steady state allocates
/// nothing here: the assembler's buffers are allocated once, the packet is read in place, and frames are lent to
/// the writer from the assembler's output buffer (libav then copies each into its own packet buffer, the one
/// allocation per frame on this path).
public final class RTPStreamRecorder {
    /// The stream's codec.
    public enum Media: Hashable, Sendable {
        /// VP8 video (RFC 7741), 90 kHz RTP clock.
        case vp8
        /// Opus audio (RFC 7587), 48 kHz RTP clock.
        case opus
    }

    /// Running counts.
    public struct Counters: Hashable, Sendable {
        /// RTP packets given to ``receive(_:)`` or ``receive(packet:)``.
        public var packetsReceived = 0
        /// Packets that could not be parsed (RTP header, VP8 descriptor) and were ignored.
        public var packetsInvalid = 0
        /// Frames the writer wrote (or holds for its header).
        public var framesWritten = 0
        /// Frames the writer dropped (empty, oversized, invalid, back in time).
        public var framesDroppedByWriter = 0
        /// Key frame requests signalled to the caller.
        public var keyFrameRequests = 0
        /// Times the stream's SSRC changed and the recorder re-anchored.
        public var restarts = 0
        /// A counters value with nothing counted.
        public init() {}
    }

    /// The codec of the stream.
    public let media: Media
    /// The file the frames go to.
    public let writer: WebMWriter
    private var timeline: StreamTimeline
    private let assembler: VP8FrameAssembler?
    private let reorder: OpusReorderWindow?
    private let arrivalOffset: (() -> Duration)?
    private var ownCounters = Counters()
    /// Timeline counts of the streams before a restart.
    private var earlierTimelines = StreamTimeline.Counters()
    private var ssrc: UInt32?
    /// Where the last frame written sits on the archive's timeline.
    private var lastWritten: Duration?

    /// A recorder for a stream whose first packet arrived `startOffset` after the archive started.
    ///
    /// - Parameters:
    ///   - assembler: bounds of the VP8 reassembly window (ignored for Opus).
    ///   - arrivalOffset: where a packet arriving now sits on the archive's timeline (the archive's clock), asked
    ///     only when the SSRC changes, to place the restarted stream.
    /// - Throws: ``RecordingError/noSuchTrack(_:)`` when `writer` has no track for `media`,
    ///   ``RecordingError/invalidConfiguration(_:)`` for assembler bounds out of range.
    public init(media: Media, writer: WebMWriter, startOffset: Duration,
                assembler: VP8FrameAssembler.Configuration = VP8FrameAssembler.Configuration(),
                arrivalOffset: (() -> Duration)? = nil) throws(RecordingError) {
        self.media = media
        self.writer = writer
        self.arrivalOffset = arrivalOffset
        switch media {
        case .vp8:
            guard writer.configuration.hasVideo else { throw .noSuchTrack("video") }
            timeline = .video(startOffset: startOffset)
            do throws(RTPError) {
                self.assembler = try VP8FrameAssembler(assembler)
            } catch {
                throw .invalidConfiguration("VP8 assembler: \(error)")
            }
            reorder = nil
        case .opus:
            guard writer.configuration.hasAudio else { throw .noSuchTrack("audio") }
            timeline = .opus(startOffset: startOffset)
            self.assembler = nil
            reorder = OpusReorderWindow()
        }
    }

    /// Recording was asked to stop at `end` on the archive's timeline: frames placed after it are not written
    /// (``StreamTimeline/stop(at:)``), however late their packets arrive.
    public func stop(at end: Duration) {
        timeline.stop(at: end)
    }

    /// Moves the stream's later frames by `correction` on the archive's timeline, reached gradually and in order
    /// (``StreamTimeline/follow(correction:)``): the placement follows the sender's newer reports
    /// (``SenderClockFollower``). A restarted stream (new SSRC) starts again without one.
    public func follow(correction: Duration) {
        timeline.follow(correction: correction)
    }

    /// The correction applied to the last frame written (``follow(correction:)``).
    public var correction: Duration { timeline.correction }

    /// The recorder's counts.
    public var counters: Counters { ownCounters }
    /// The timeline's counts (frames admitted, dropped before the key frame, dropped as not moving forward).
    public var timelineCounters: StreamTimeline.Counters {
        var sum = earlierTimelines
        sum.admitted += timeline.counters.admitted
        sum.droppedWaitingForKeyFrame += timeline.counters.droppedWaitingForKeyFrame
        sum.droppedNotAfterPrevious += timeline.counters.droppedNotAfterPrevious
        sum.droppedAfterStop += timeline.counters.droppedAfterStop
        return sum
    }
    /// The Opus reorder window's counts (`nil` for VP8).
    public var reorderCounters: OpusReorderWindow.Counters? { reorder?.counters }
    /// The VP8 assembler's counts (`nil` for Opus).
    public var assemblerCounters: VP8FrameAssembler.Counters? { assembler?.counters }

    /// Parses and records one RTP packet. Returns `true` when the publisher should be asked for a key frame (PLI).
    ///
    /// - Throws: only a writer failure (``RecordingError/libav(operation:code:message:)``,
    ///   ``RecordingError/closed``); a malformed packet is counted in ``Counters/packetsInvalid``.
    @discardableResult
    public func receive(packet bytes: UnsafeRawBufferPointer) throws(RecordingError) -> Bool {
        let view: RTPPacketView
        do throws(RTPError) {
            view = try RTPPacketView(parsing: bytes)
        } catch {
            ownCounters.packetsReceived += 1
            ownCounters.packetsInvalid += 1
            return false
        }
        return try receive(view)
    }

    /// Records one parsed RTP packet. Returns `true` when the publisher should be asked for a key frame (PLI).
    ///
    /// - Throws: only a writer failure; a malformed payload is counted in ``Counters/packetsInvalid``.
    @discardableResult
    public func receive(_ packet: borrowing RTPPacketView) throws(RecordingError) -> Bool {
        ownCounters.packetsReceived += 1
        var restarted = false
        if let ssrc, packet.ssrc != ssrc {
            try restart()
            restarted = true
        }
        ssrc = packet.ssrc
        timeline.anchor(rtpTimestamp: packet.timestamp)
        guard let assembler else {
            try reorder?.insert(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp,
                                payload: packet.payload, emit: writeAudio)
            return false
        }
        do throws(RTPError) {
            try assembler.insert(packet)
        } catch {
            ownCounters.packetsInvalid += 1
        }
        var keyFrameNeeded = false
        while let event = assembler.next() {
            switch event {
            case let .frame(frame):
                let decision = timeline.admit(rtpTimestamp: frame.timestamp, isKeyFrame: frame.isKeyFrame)
                if case let .write(at) = decision {
                    count(try writer.writeVideo(frame.bytes, isKeyFrame: frame.isKeyFrame, timestamp: at), at: at)
                }
            case .keyFrameNeeded:
                keyFrameNeeded = true
            }
        }
        keyFrameNeeded = keyFrameNeeded || restarted
        if keyFrameNeeded { ownCounters.keyFrameRequests += 1 }
        return keyFrameNeeded
    }

    /// Writes the Opus packets the reorder window still holds (before the writer is closed). Nothing for VP8.
    ///
    /// - Throws: only a writer failure.
    public func flush() throws(RecordingError) {
        try reorder?.flush(emit: writeAudio)
    }

    /// The SSRC changed: what is held is written, and a fresh timeline starts at the new stream's arrival (never
    /// before the last frame written), carrying the stop instant over.
    private func restart() throws(RecordingError) {
        try flush()
        reorder?.reset()
        assembler?.reset()
        let after = lastWritten.map { $0 + .milliseconds(1) } ?? timeline.startOffset
        let start = max(arrivalOffset?() ?? after, after)
        let counters = timeline.counters
        earlierTimelines.admitted += counters.admitted
        earlierTimelines.droppedWaitingForKeyFrame += counters.droppedWaitingForKeyFrame
        earlierTimelines.droppedNotAfterPrevious += counters.droppedNotAfterPrevious
        earlierTimelines.droppedAfterStop += counters.droppedAfterStop
        var fresh = StreamTimeline(clockRate: timeline.clockRate, startOffset: start, waitsForKeyFrame: timeline.waitsForKeyFrame)
        if let end = timeline.end { fresh.stop(at: end) }
        timeline = fresh
        ownCounters.restarts += 1
    }

    /// Places one Opus packet (in order, from the reorder window) and writes it.
    private func writeAudio(_ payload: UnsafeRawBufferPointer, _ timestamp: UInt32) throws(RecordingError) {
        if case let .write(at) = timeline.admit(rtpTimestamp: timestamp, isKeyFrame: true) {
            count(try writer.writeAudio(payload, timestamp: at), at: at)
        }
    }

    private func count(_ outcome: WebMWriter.Outcome, at: Duration) {
        switch outcome {
        case .written, .pending:
            ownCounters.framesWritten += 1
            lastWritten = at
        case .dropped: ownCounters.framesDroppedByWriter += 1
        }
    }
}
