import Logging
import Synchronization
@_spi(Recording) import TokKit
import TokKitCodecs
import TokKitMedia
import TokKitPeer
import TokKitRTP
import TokKitRecording

/// One subscribed stream of a composed archive: decodes its media for the composer (the ``EncodedMediaReceiver``
/// of a ``Subscriber`` the ``ComposedArchiver`` makes for each stream).
///
/// - Video: packets are reassembled by a ``VP8FrameAssembler`` and each whole frame decoded at once, on the
///   connection's network thread (about half a millisecond at 640x480), into a small pool; the pictures wait in a
///   ``PictureQueue`` of ``pictureSlots`` with their RTP timestamps, and the composer takes the one due
///   (``picture(at:)``). Key frames are asked for when the assembler or the decoder needs one, at most every
///   ``keyFrameRequestInterval``.
/// - Audio: Opus payloads are copied into an ``AudioJitterBuffer`` (40 ms target); the composer pulls one period
///   at a time (``readAudio(into:at:)``), decoded then, with FEC or concealment for a lost packet.
///
/// Audio/video sync: until the publisher's first RTCP sender reports of both streams arrive (about a second after
/// the connection came up), audio plays as the jitter buffer delivers it and the newest picture is shown at once.
/// From then on both are placed by the sender's clock through a ``ComposedSync`` chosen at that period: the newest
/// audio packet plays ``ComposedSync/defaultDelay`` after its arrival (the anchor then follows the sender's clock
/// drift a millisecond per period once it is 30 ms off, pictures with it); each period plays the samples its RTP
/// timestamps put there (decoded audio that comes too late is skipped, a gap is silence or concealment, so later
/// audio never moves back); each picture is shown when the audio captured at the same instant is mixed (its
/// video RTP timestamp mapped through both sender reports). A decoded Opus sample lags its packet's RTP timestamp by
/// the sender encoder's lookahead (libopus: 312 samples), which the placement takes off.
///
/// Threading: packets arrive on the network thread; the composer calls from its own thread. Each side's state is
/// used under its own lock, held only for the work on one packet or one period; nothing is allocated per packet.
final class ComposedStreamInput: EncodedMediaReceiver, ComposerInput {
    /// The stream.
    let streamID: StreamID
    /// When the stream was seen, from the archive's start.
    let joined: Duration

    static let keyFrameRequestInterval: Duration = .milliseconds(300)
    /// Decoded pictures waiting to be shown (a few frames: the common delay is under 0.1 s).
    static let pictureSlots = 5
    /// The publisher's Opus encoder lookahead at 48 kHz (libopus, VOIP and audio applications, as TokKit and
    /// browsers send): decoded samples come this much after their packet's RTP timestamp.
    static let senderLookahead: UInt32 = 312
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
            // The queued pictures, one drawn by the composer, one being decoded.
            decoder = try? VP8Decoder(poolCapacity: ComposedStreamInput.pictureSlots + 2)
        }
    }

    /// The audio side, used only under `audio` (hence `@unchecked Sendable`): the jitter buffer, the decoder and
    /// one decoded packet served in pieces, with what places it.
    private final class AudioSide: @unchecked Sendable {
        let jitter: AudioJitterBuffer?
        let decoder: OpusDecoder?
        let pcm = UnsafeMutableBufferPointer<Int16>.allocate(capacity: OpusDecoder.maximumSamplesPerChannel)
        var available = 0
        var position = 0
        var lastLength = 960
        /// The RTP timestamp of `pcm[0]` (lookahead taken off), and of the sample after the decoded packet.
        var chunkTimestamp: UInt32 = 0
        var nextTimestamp: UInt32?
        /// The newest audio packet received: its RTP timestamp and arrival on the archive's timeline.
        var newestTimestamp: UInt32?
        var newestArrival = Duration.zero
        /// Placement by the sender's clock, once its reports are known.
        var sync: ComposedSync?
        init() {
            // Up to 240 ms held, before and after sync: once synchronised packets are taken by their timestamps, up
            // to the common delay (80 ms, ± the 30 ms the anchor may drift) plus a burst, and no sooner.
            jitter = try? AudioJitterBuffer(AudioJitterBuffer.Configuration(maximumDelay: .milliseconds(240)))
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
    /// The decoded pictures waiting, used only under `pictures`.
    private final class Pictures: @unchecked Sendable {
        let queue = PictureQueue<VideoFrame>(capacity: ComposedStreamInput.pictureSlots)
    }
    private let waiting = Pictures()
    private let pictures = Mutex(())

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
        // A new connection may start its RTP numbering afresh, with new sender reports: placed anew once they come.
        video.withLock { _ in videoSide.assembler?.reset() }
        audio.withLock { _ in
            audioSide.sync = nil
            audioSide.newestTimestamp = nil
        }
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
        let arrival = ContinuousClock.now - archiveStart
        audio.withLock { _ in
            _ = try? audioSide.jitter?.insert(sequenceNumber: sequenceNumber, timestamp: timestamp, payload: payload)
            if let newest = audioSide.newestTimestamp, ComposedSync.samples(from: newest, to: timestamp) <= 0 { return }
            audioSide.newestTimestamp = timestamp
            audioSide.newestArrival = arrival
        }
    }

    private func receiveVideo(_ packet: borrowing RTPPacketView) {
        let view = copy packet  // a few words (the view points at the network thread's buffer, valid for this call)
        var keyFrameNeeded = false
        var decoded: VideoFrame?
        var decodedTimestamp: UInt32 = 0
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
                            if let decoded { push(decoded, timestamp: decodedTimestamp) }
                            decoded = picture
                            decodedTimestamp = frame.timestamp
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
        if let decoded { push(decoded, timestamp: decodedTimestamp) }
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
    var latestPicture: VideoFrame? { pictures.withLock { _ in waiting.queue.newest } }

    /// The picture to show at `time` (pooled: safe to read until dropped), `nil` before the first: before sync the
    /// newest; then the one whose capture instant, mapped through the sender reports, is due nearest `time` and at
    /// most `lead` after it (``PictureQueue``).
    func picture(at time: Duration, lead: Duration) -> VideoFrame? {
        let placement = videoPlacement()
        return pictures.withLock { _ in
            guard let placement else { return waiting.queue.select(at: time, lead: lead) { _ in .zero } }
            return waiting.queue.select(at: time, lead: lead) { entry in
                placement.sync.pictureTime(of: entry.timestamp, arrival: entry.arrival,
                                           audio: placement.audio, video: placement.video)
            }
        }
    }

    /// What places pictures, once audio is placed by the sender's clock: the anchor and both streams' latest
    /// sender reports. Two short locks and two report reads; nothing allocated.
    private func videoPlacement() -> (sync: ComposedSync, audio: SenderClock, video: SenderClock)? {
        guard let sync = audio.withLock({ _ in audioSide.sync }), let reports = senderReports() else { return nil }
        return (sync, SenderClock(ntp: reports.audio.ntp, rtpTimestamp: reports.audio.rtpTimestamp, clockRate: 48_000),
                SenderClock(ntp: reports.video.ntp, rtpTimestamp: reports.video.rtpTimestamp, clockRate: 90_000))
    }

    /// The publisher's latest sender reports of both streams, once both came.
    private func senderReports() -> (audio: RemoteSenderReport, video: RemoteSenderReport)? {
        guard let source = control.withLock({ $0.source }),
              let audio = source.senderReport(.audio), let video = source.senderReport(.video) else { return nil }
        return (audio, video)
    }

    /// Fills all of `output` (mono, 48 kHz) with the stream's audio for the period starting at `time`; returns
    /// `false`, writing nothing, when it has none (not started, underrun, left). Before sync, the jitter buffer's
    /// next audio; then the samples the period's RTP timestamps name (see the type's comment).
    func readAudio(into output: UnsafeMutableBufferPointer<Int16>, at time: Duration) -> Bool {
        let unsynchronised = audio.withLock { _ in audioSide.sync == nil }
        let reportsKnown = unsynchronised && senderReports() != nil
        return audio.withLock { _ in
            let side = audioSide
            if side.sync == nil, reportsKnown, let newest = side.newestTimestamp {
                side.sync = ComposedSync(at: time, newestAudio: newest, arrival: side.newestArrival)
            }
            guard side.sync != nil else { return readNext(side, into: output) }
            if let newest = side.newestTimestamp {  // follows the sender's clock drift (a millisecond at a time)
                side.sync?.follow(at: time, newestAudio: newest, arrival: side.newestArrival)
            }
            guard let sync = side.sync else { return readNext(side, into: output) }
            return readPlaced(side, into: output, from: sync.audioTimestamp(at: time))
        }
    }

    /// Fills `output` with the audio that follows (before sync).
    private func readNext(_ side: AudioSide, into output: UnsafeMutableBufferPointer<Int16>) -> Bool {
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

    /// Fills `output` with the samples from RTP timestamp `wanted` on: decoded audio before it is skipped, a gap
    /// before the next decoded audio is silence. A chunk further than ``ComposedSync/maximumAlignment`` from its
    /// place (a sender restart) drops the sync: chosen again at the next period.
    private func readPlaced(_ side: AudioSide, into output: UnsafeMutableBufferPointer<Int16>, from wanted: UInt32) -> Bool {
        var written = 0, heard = 0
        var wanted = wanted
        // Bounded: each refill takes one packet out of the jitter buffer (at most its capacity are there).
        var refills = 0
        while written < output.count {
            if side.position == side.available {
                guard refills <= 40 else { break }
                refills += 1
                refill(side)
                guard side.position < side.available else { break }
            }
            let gap = ComposedSync.samples(from: wanted, to: side.chunkTimestamp &+ UInt32(side.position))
            if abs(gap) > ComposedSync.maximumAlignment {
                side.sync = nil
                break
            }
            if gap < 0 {  // too late for this period: skipped
                side.position += min(-gap, side.available - side.position)
                continue
            }
            let n: Int
            if gap > 0 {  // not here yet (lost, late, or silence sent as nothing): silence until it is
                n = min(gap, output.count - written)
                for i in 0..<n { output[written + i] = 0 }
            } else {
                n = min(output.count - written, side.available - side.position)
                for i in 0..<n { output[written + i] = side.pcm[side.position + i] }
                side.position += n
                heard += n
            }
            written += n
            wanted &+= UInt32(n)
        }
        guard heard > 0 else { return false }
        for i in written..<output.count { output[i] = 0 }
        return true
    }

    /// Decodes the jitter buffer's next packet (or conceals a lost one) into the side's buffer, with its timestamp.
    private func refill(_ side: AudioSide) {
        side.position = 0
        side.available = 0
        guard let jitter = side.jitter, let decoder = side.decoder else { return }
        do throws(CodecError) {
            switch jitter.pop() {
            case .packet(let packet):
                side.available = try decoder.decode(packet.bytes, into: side.pcm)
                side.lastLength = side.available
                side.chunkTimestamp = packet.timestamp &- Self.senderLookahead
            case .missing(_, let following):
                let target = UnsafeMutableBufferPointer(rebasing: side.pcm[0..<side.lastLength])
                side.available = try decoder.decodeMissing(using: following?.bytes, into: target)
                side.chunkTimestamp = following.map { $0.timestamp &- UInt32(side.available) &- Self.senderLookahead }
                    ?? side.nextTimestamp ?? 0
            case .empty, .hold:  // no extra delay is ever asked of this buffer: no holds
                break
            }
        } catch {
            side.available = 0
        }
        if side.available > 0 { side.nextTimestamp = side.chunkTimestamp &+ UInt32(side.available) }
    }

    // MARK: - Video (network thread)

    /// Queues a decoded picture; called under `video`.
    private func push(_ picture: VideoFrame, timestamp: UInt32) {
        let arrival = ContinuousClock.now - archiveStart
        pictures.withLock { _ in waiting.queue.push(picture, timestamp: timestamp, arrival: arrival) }
    }

    // MARK: - Control

    /// Marks the stream gone (its stream was destroyed) at `offset` from the archive's start; its picture is
    /// dropped.
    func leave(at offset: Duration) {
        control.withLock { c in if c.left == nil { c.left = offset } }
        pictures.withLock { _ in waiting.queue.removeAll() }
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
