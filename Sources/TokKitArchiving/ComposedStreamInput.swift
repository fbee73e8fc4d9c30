import Logging
import Synchronization
@_spi(Recording) import TokKit
import TokKitCodecs
import TokKitMedia
import TokKitPeer
import TokKitRTP

/// One subscribed stream of a composed archive: decodes its media for the composer (the ``EncodedMediaReceiver``
/// of a ``Subscriber`` the ``ComposedArchiver`` makes for each stream).
///
/// - Video: packets are reassembled by a ``VP8FrameAssembler`` and each whole frame decoded at once, on the
///   connection's network thread (about half a millisecond at 640x480), into a small pool; the newest picture
///   replaces the previous one in a slot the composer reads (``latestPicture``). Key frames are asked for when the
///   assembler or the decoder needs one, at most every ``keyFrameRequestInterval``.
/// - Audio: Opus payloads are copied into an ``AudioJitterBuffer`` (40 ms target); the composer pulls one period
///   at a time (``readAudio(into:)``), decoded then, with FEC or concealment for a lost packet.
///
/// Threading: packets arrive on the network thread; the composer calls from its own thread. Each side's state is
/// used under its own lock, held only for the work on one packet or one period; nothing is allocated per packet.
final class ComposedStreamInput: EncodedMediaReceiver, ComposerInput {
    /// The stream.
    let streamID: StreamID
    /// When the stream was seen, from the archive's start.
    let joined: Duration

    static let keyFrameRequestInterval: Duration = .milliseconds(300)
    /// Counts the inputs alive of one archiver (``ComposedArchiver/liveInputs``: tests check that ended streams'
    /// inputs are released).
    final class Tally: Sendable {
        let live = Atomic<Int>(0)
    }

    /// The tally this input counts in while alive, if any.
    private let tally: Tally?

    private struct Control {
        var source: EncodedMediaSource?
        var lastKeyFrameRequest: ContinuousClock.Instant?
        var left: Duration?
        var firstPicture: Duration?
        var framesDecoded = 0
        var decodeFailures = 0
    }

    /// The video decoder side, used only under `video` (hence `@unchecked Sendable`).
    private final class VideoSide: @unchecked Sendable {
        let assembler: VP8FrameAssembler?
        let decoder: VP8Decoder?
        /// The first frame refused before decoding (``ComposedFrameLimit``), logged once.
        var refusal: ComposedFrameRefusal?
        /// After a refused key frame: delta frames are dropped until a key frame within the bound.
        var awaitingKeyFrame = false
        init() {
            assembler = try? VP8FrameAssembler()
            decoder = try? VP8Decoder(poolCapacity: 3)
        }
    }

    /// The audio side, used only under `audio` (hence `@unchecked Sendable`): the jitter buffer, the decoder and
    /// one decoded packet served in pieces.
    private final class AudioSide: @unchecked Sendable {
        let jitter: AudioJitterBuffer?
        let decoder: OpusDecoder?
        let pcm = UnsafeMutableBufferPointer<Int16>.allocate(capacity: OpusDecoder.maximumSamplesPerChannel)
        var available = 0
        var position = 0
        var lastLength = 960
        init() {
            jitter = try? AudioJitterBuffer()
            decoder = try? OpusDecoder(sampleRate: 48_000, channels: 1)
            pcm.initialize(repeating: 0)
        }
        deinit { pcm.deallocate() }
    }

    private let archiveStart: ContinuousClock.Instant
    private let logger: Logger
    private let control: Mutex<Control>
    private let videoSide = VideoSide()
    private let video = Mutex(())
    private let audioSide = AudioSide()
    private let audio = Mutex(())
    private let picture = Mutex<VideoFrame?>(nil)

    init(streamID: StreamID, archiveStart: ContinuousClock.Instant, tally: Tally? = nil,
         logger: Logger = Logger(label: "tokkit.archiver.composed")) {
        self.streamID = streamID
        self.archiveStart = archiveStart
        self.logger = logger
        self.tally = tally
        tally?.live.add(1, ordering: .relaxed)
        joined = ContinuousClock.now - archiveStart
        control = Mutex(Control())
    }

    deinit { tally?.live.subtract(1, ordering: .relaxed) }

    // MARK: - EncodedMediaReceiver (network thread, negotiation queue)

    func encodedMediaDidStart(_ source: EncodedMediaSource) {
        control.withLock { $0.source = source }
        // A new connection may start its RTP numbering afresh.
        video.withLock { _ in videoSide.assembler?.reset() }
    }

    func receive(_ packet: borrowing RTPPacketView, kind: MediaKind) {
        switch kind {
        case .audio: receiveAudio(packet)
        case .video: receiveVideo(packet)
        }
    }

    func encodedMediaDidStop(_ source: EncodedMediaSource) {
        control.withLock { c in
            if let current = c.source, current.isSame(as: source) { c.source = nil }
        }
    }

    private func receiveAudio(_ packet: borrowing RTPPacketView) {
        let (sequenceNumber, timestamp, payload) = (packet.sequenceNumber, packet.timestamp, packet.payload)
        audio.withLock { _ in
            _ = try? audioSide.jitter?.insert(sequenceNumber: sequenceNumber, timestamp: timestamp, payload: payload)
        }
    }

    private func receiveVideo(_ packet: borrowing RTPPacketView) {
        let view = copy packet  // a few words (the view points at the network thread's buffer, valid for this call)
        var keyFrameNeeded = false
        var decoded: VideoFrame?
        var frames = 0, failures = 0
        var refused: ComposedFrameRefusal?
        video.withLock { _ in
            guard let assembler = videoSide.assembler, let decoder = videoSide.decoder else { return }
            _ = try? assembler.insert(view)
            while let event = assembler.next() {
                switch event {
                case .frame(let frame):
                    if let refusal = ComposedFrameLimit.check(frame.bytes) {
                        videoSide.awaitingKeyFrame = true
                        if videoSide.refusal == nil {
                            videoSide.refusal = refusal
                            refused = refusal
                        }
                        continue
                    }
                    if videoSide.awaitingKeyFrame {
                        guard let first = frame.bytes.first, VP8PayloadHeader.isKeyFrame(firstByte: first) else { continue }
                        videoSide.awaitingKeyFrame = false
                    }
                    do throws(CodecError) {
                        if let picture = try decoder.decode(frame.bytes) {
                            decoded = picture
                            frames += 1
                        }
                    } catch {
                        if case .poolExhausted = error { continue }  // decoded, only not kept: no key frame needed
                        failures += 1
                        keyFrameNeeded = true
                    }
                case .keyFrameNeeded:
                    keyFrameNeeded = true
                }
            }
        }
        if let decoded {
            picture.withLock { $0 = decoded }
        }
        if let refused {
            logger.warning("composed archive refuses a stream's video", metadata: [
                "stream_id": "\(streamID)", "reason": "\(refused)"])
        }
        if frames > 0 || failures > 0 || keyFrameNeeded {
            let now = ContinuousClock.now
            let source: EncodedMediaSource? = control.withLock { c in
                c.framesDecoded += frames
                c.decodeFailures += failures
                if frames > 0, c.firstPicture == nil { c.firstPicture = now - archiveStart }
                guard keyFrameNeeded, let source = c.source else { return nil }
                if let last = c.lastKeyFrameRequest, now - last < Self.keyFrameRequestInterval { return nil }
                c.lastKeyFrameRequest = now
                return source
            }
            source?.requestKeyframe()
        }
    }

    // MARK: - Composer thread

    /// The newest decoded picture (pooled: safe to read until dropped), `nil` before the first.
    var latestPicture: VideoFrame? { picture.withLock { $0 } }

    /// Fills all of `output` (mono, 48 kHz) with the stream's next audio; returns `false`, writing nothing, when it
    /// has none (not started, underrun, left).
    func readAudio(into output: UnsafeMutableBufferPointer<Int16>) -> Bool {
        audio.withLock { _ in
            let side = audioSide
            var written = 0
            while written < output.count {
                if side.position == side.available {
                    refill(side)
                    guard side.position < side.available else { break }
                }
                let n = min(output.count - written, side.available - side.position)
                for i in 0..<n { output[written + i] = side.pcm[side.position + i] }
                side.position += n
                written += n
            }
            guard written > 0 else { return false }
            for i in written..<output.count { output[i] = 0 }
            return true
        }
    }

    /// Decodes the jitter buffer's next packet (or conceals a lost one) into the side's buffer.
    private func refill(_ side: AudioSide) {
        side.position = 0
        side.available = 0
        guard let jitter = side.jitter, let decoder = side.decoder else { return }
        do throws(CodecError) {
            switch jitter.pop() {
            case .packet(let packet):
                side.available = try decoder.decode(packet.bytes, into: side.pcm)
                side.lastLength = side.available
            case .missing(_, let following):
                let target = UnsafeMutableBufferPointer(rebasing: side.pcm[0..<side.lastLength])
                side.available = try decoder.decodeMissing(using: following?.bytes, into: target)
            case .empty:
                break
            }
        } catch {
            side.available = 0
        }
    }

    // MARK: - Control

    /// Marks the stream gone (its stream was destroyed) at `offset` from the archive's start; its picture is
    /// dropped.
    func leave(at offset: Duration) {
        control.withLock { c in if c.left == nil { c.left = offset } }
        picture.withLock { $0 = nil }
    }

    /// The first video frame refused before decoding (too large), if any.
    var frameRefusal: ComposedFrameRefusal? { video.withLock { _ in videoSide.refusal } }

    /// When the stream left, from the archive's start (`nil`: still there).
    var left: Duration? { control.withLock { $0.left } }

    /// When the first picture was decoded, frames decoded and frames that failed to decode.
    var videoCounts: (firstPicture: Duration?, decoded: Int, failed: Int) {
        control.withLock { ($0.firstPicture, $0.framesDecoded, $0.decodeFailures) }
    }
}
