import TokKitRTP

/// Records one received RTP stream (SRTP already removed) into a ``WebMWriter``, without decoding: VP8 packets are
/// reassembled into frames by ``VP8FrameAssembler`` (reordering, duplicates, retransmissions and loss handled
/// there), Opus payloads are written as they are.
///
/// Each frame's RTP timestamp is placed on the archive's timeline by a ``StreamTimeline`` (90 kHz for VP8, 48 kHz
/// for Opus, 32-bit wraparound, the stream's first packet at `startOffset`); video waits for a first key frame;
/// frames that do not move forward are dropped. When the assembler gives up a frame or is waiting for a key frame,
/// ``receive(_:)`` returns `true`: the caller should send the publisher a PLI.
///
/// Feed it only the packets of one stream (one SSRC and payload type, RTX already unwrapped); several recorders
/// (the audio and the video of one published stream) may share one writer.
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
        /// A counters value with nothing counted.
        public init() {}
    }

    /// The codec of the stream.
    public let media: Media
    /// The file the frames go to.
    public let writer: WebMWriter
    private var timeline: StreamTimeline
    private let assembler: VP8FrameAssembler?
    private var ownCounters = Counters()

    /// A recorder for a stream whose first packet arrived `startOffset` after the archive started.
    ///
    /// - Parameter assembler: bounds of the VP8 reassembly window (ignored for Opus).
    /// - Throws: ``RecordingError/noSuchTrack(_:)`` when `writer` has no track for `media`,
    ///   ``RecordingError/invalidConfiguration(_:)`` for assembler bounds out of range.
    public init(media: Media, writer: WebMWriter, startOffset: Duration,
                assembler: VP8FrameAssembler.Configuration = VP8FrameAssembler.Configuration()) throws(RecordingError) {
        self.media = media
        self.writer = writer
        switch media {
        case .vp8:
            guard writer.configuration.hasVideo else { throw .noSuchTrack("video") }
            timeline = .video(startOffset: startOffset)
            do throws(RTPError) {
                self.assembler = try VP8FrameAssembler(assembler)
            } catch {
                throw .invalidConfiguration("VP8 assembler: \(error)")
            }
        case .opus:
            guard writer.configuration.hasAudio else { throw .noSuchTrack("audio") }
            timeline = .opus(startOffset: startOffset)
            self.assembler = nil
        }
    }

    /// Recording was asked to stop at `end` on the archive's timeline: frames placed after it are not written
    /// (``StreamTimeline/stop(at:)``), however late their packets arrive.
    public func stop(at end: Duration) {
        timeline.stop(at: end)
    }

    /// The recorder's counts.
    public var counters: Counters { ownCounters }
    /// The timeline's counts (frames admitted, dropped before the key frame, dropped as not moving forward).
    public var timelineCounters: StreamTimeline.Counters { timeline.counters }
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
        timeline.anchor(rtpTimestamp: packet.timestamp)
        guard let assembler else {
            let decision = timeline.admit(rtpTimestamp: packet.timestamp, isKeyFrame: true)
            if case let .write(at) = decision {
                count(try writer.writeAudio(packet.payload, timestamp: at))
            }
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
                    count(try writer.writeVideo(frame.bytes, isKeyFrame: frame.isKeyFrame, timestamp: at))
                }
            case .keyFrameNeeded:
                keyFrameNeeded = true
            }
        }
        if keyFrameNeeded { ownCounters.keyFrameRequests += 1 }
        return keyFrameNeeded
    }

    private func count(_ outcome: WebMWriter.Outcome) {
        switch outcome {
        case .written, .pending: ownCounters.framesWritten += 1
        case .dropped: ownCounters.framesDroppedByWriter += 1
        }
    }
}
