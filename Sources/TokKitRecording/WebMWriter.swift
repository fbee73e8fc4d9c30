import CAVFormat
import Synchronization
import TokKitRTP

/// Writes a WebM file (Matroska, libavformat's `webm` muxer) with a VP8 video track and/or an Opus audio track,
/// from frames that are already encoded: nothing is decoded or re-encoded.
///
/// Frames come with their time on the archive's timeline (``Duration`` since the archive started; the file keeps
/// milliseconds, WebM's usual timecode scale). Each track's timestamps must not go back: a frame older than the
/// previous one of its track is dropped and counted, as are empty or oversized payloads, invalid Opus packets and
/// video delta frames before the first key frame. A video frame in the previous one's millisecond is written 1 ms
/// after it (``Counters/videoFramesDelayed``). None of these is an error, so bad input never ends a recording;
/// only libav failures (the disk, the file) throw ``RecordingError``.
///
/// **Incremental and crash safe.** The muxer builds one cluster at a time in memory and ends it at a key frame once
/// it holds more than 4 KiB, or after ``Configuration/clusterDuration``, or at ``Configuration/clusterSizeLimit``
/// bytes; after every frame the writer flushes libav's I/O buffer, so each finished cluster is handed to the kernel
/// at once. A writer killed without ``close()`` leaves a file whose Segment has an unknown size and no cues: players
/// and `ffmpeg` read it up to the last finished cluster (at most about ``Configuration/clusterDuration`` is lost).
/// ``close()`` ends the last cluster and writes the trailer: cues (for seeking) and the duration. The matroska
/// `live` option is not used: it would leave out the cues and the duration even from a closed file.
///
/// **Interleaving.** Audio and video go through `av_interleaved_write_frame`, which orders the two tracks by
/// timestamp; a track that falls silent (a muted publisher) holds the other back at most
/// ``Configuration/maximumInterleaveDelay``.
///
/// **Video size.** libavformat needs the picture size before it writes the file header. Give it in
/// ``VideoTrack``, or leave it `nil` and the header waits for the first key frame, whose VP8 header carries the size;
/// audio arriving before that is held (at most ``Configuration/maximumPendingPackets`` packets) and written after
/// the header.
///
/// Threading: `Sendable`; every call takes the writer's lock, so one writer can be fed by an audio and a video
/// recorder on different threads. libav copies each frame (it must keep it for interleaving), so the caller's
/// buffer may be reused as soon as a write call returns.
public final class WebMWriter: Sendable {
    /// The VP8 video track.
    public struct VideoTrack: Hashable, Sendable {
        /// Picture width in pixels, or `nil` to take it from the first key frame.
        public var width: Int?
        /// Picture height in pixels, or `nil` to take it from the first key frame.
        public var height: Int?

        /// A VP8 track of the given size, or of the first key frame's size when `nil`.
        public init(width: Int? = nil, height: Int? = nil) {
            self.width = width
            self.height = height
        }
    }

    /// The Opus audio track (48 kHz, as Opus always decodes).
    public struct AudioTrack: Hashable, Sendable {
        /// 1 (mono) or 2 (stereo), the channel count written in the OpusHead.
        public var channels: Int
        /// Samples at 48 kHz the decoder discards at the start (OpusHead pre-skip, Matroska CodecDelay). 0 for
        /// audio taken from RTP mid-stream, where the encoder's start-up was never seen.
        public var preSkip: Int

        /// An Opus track of `channels` channels with `preSkip` samples of pre-skip.
        public init(channels: Int = 1, preSkip: Int = 0) {
            self.channels = channels
            self.preSkip = preSkip
        }
    }

    /// What the file holds and how it is cut into clusters.
    public struct Configuration: Hashable, Sendable {
        /// The video track, `nil` for an audio-only file (`hasVideo` false).
        public var video: VideoTrack?
        /// The audio track, `nil` for a video-only file (`hasAudio` false).
        public var audio: AudioTrack?
        /// Longest cluster: what a crash can lose at most. Default 1 s.
        public var clusterDuration: Duration
        /// Largest cluster in bytes. Default 2 MiB.
        public var clusterSizeLimit: Int
        /// How long one track may wait for the other when interleaving. Default 500 ms.
        public var maximumInterleaveDelay: Duration
        /// Largest frame accepted; larger ones are dropped (``DropReason/oversized``). Default 4 MiB.
        public var maximumFrameSize: Int
        /// Audio packets held while the header waits for the first key frame's size. Default 500 (10 s of 20 ms).
        public var maximumPendingPackets: Int

        /// A configuration; at least one of `video` and `audio` must be given.
        public init(video: VideoTrack? = nil, audio: AudioTrack? = nil, clusterDuration: Duration = .seconds(1),
                    clusterSizeLimit: Int = 2 << 20, maximumInterleaveDelay: Duration = .milliseconds(500),
                    maximumFrameSize: Int = 4 << 20, maximumPendingPackets: Int = 500) {
            self.video = video
            self.audio = audio
            self.clusterDuration = clusterDuration
            self.clusterSizeLimit = clusterSizeLimit
            self.maximumInterleaveDelay = maximumInterleaveDelay
            self.maximumFrameSize = maximumFrameSize
            self.maximumPendingPackets = maximumPendingPackets
        }

        /// Whether the file has a video track.
        public var hasVideo: Bool { video != nil }
        /// Whether the file has an audio track.
        public var hasAudio: Bool { audio != nil }

        func validate() throws(RecordingError) {
            guard video != nil || audio != nil else { throw .invalidConfiguration("neither video nor audio") }
            if let video {
                for (name, value) in [("width", video.width), ("height", video.height)] {
                    if let value, !(2...16_383).contains(value) {
                        throw .invalidConfiguration("video \(name) \(value) outside 2...16383")
                    }
                }
                if (video.width == nil) != (video.height == nil) {
                    throw .invalidConfiguration("give both video width and height, or neither")
                }
            }
            if let audio {
                guard (1...2).contains(audio.channels) else {
                    throw .invalidConfiguration("audio channels \(audio.channels) outside 1...2")
                }
                guard (0...Int(UInt16.max)).contains(audio.preSkip) else {
                    throw .invalidConfiguration("pre-skip \(audio.preSkip) outside 0...65535")
                }
            }
            guard clusterDuration >= .milliseconds(10), clusterSizeLimit >= 4096,
                  (1...Int(Int32.max)).contains(maximumFrameSize),  // libav's packet sizes are Int32
                  maximumInterleaveDelay >= .zero, maximumPendingPackets >= 0
            else { throw .invalidConfiguration("cluster, frame or queue limits out of range") }
        }
    }

    /// Why a frame was not written.
    public enum DropReason: Hashable, Sendable, CaseIterable {
        /// No bytes.
        case empty
        /// Larger than ``Configuration/maximumFrameSize``.
        case oversized
        /// Older than the previous frame of its track, or before the archive's start (negative).
        case backwards
        /// A video delta frame before the track's first key frame (it could not be decoded).
        case beforeKeyFrame
        /// An Opus packet that breaks RFC 6716's framing rules.
        case invalid
        /// Audio arriving while the header waits for a key frame, with the pending queue full.
        case pendingFull
    }

    /// What a write call did with a frame.
    public enum Outcome: Hashable, Sendable {
        /// Handed to the muxer.
        case written
        /// Held until the header can be written (audio before the first key frame gives the video size).
        case pending
        /// Dropped and counted.
        case dropped(DropReason)
    }

    /// Running counts.
    public struct Counters: Hashable, Sendable {
        /// Video frames handed to the muxer.
        public var videoFramesWritten = 0
        /// Audio packets handed to the muxer.
        public var audioPacketsWritten = 0
        /// Payload bytes handed to the muxer (container overhead excluded).
        public var payloadBytesWritten = 0
        /// Video frames written 1 ms or more after their time, which fell in the previous frame's millisecond.
        public var videoFramesDelayed = 0
        /// Frames dropped, by reason.
        public var dropped: [DropReason: Int] = [:]
        /// All frames dropped.
        public var droppedTotal: Int { dropped.values.reduce(0, +) }
        /// A counters value with nothing counted.
        public init() {}
    }

    /// The file being written.
    public let path: String
    /// The configuration the writer was opened with.
    public let configuration: Configuration
    private let core: Mutex<Core>

    /// Creates `path` (truncating it) and prepares the tracks; writes the header now unless the video size waits
    /// for the first key frame.
    ///
    /// - Throws: ``RecordingError/invalidConfiguration(_:)``, or ``RecordingError/libav(operation:code:message:)``
    ///   when the file cannot be created (e.g. `ENOENT`, `EACCES`) or the header cannot be written.
    public init(path: String, configuration: Configuration) throws(RecordingError) {
        try configuration.validate()
        self.path = path
        self.configuration = configuration
        core = Mutex(try Core(path: path, configuration: configuration))
    }

    deinit {
        core.withLock { try? $0.close() }
    }

    /// Writes one VP8 frame (RFC 6386 bytes, as the encoder or ``VP8FrameAssembler`` produced them) at `timestamp`
    /// on the archive's timeline.
    ///
    /// - Throws: ``RecordingError/noSuchTrack(_:)`` without a video track, ``RecordingError/closed``, or a libav
    ///   failure (the file can no longer be written).
    @discardableResult
    public func writeVideo(_ frame: UnsafeRawBufferPointer, isKeyFrame: Bool,
                           timestamp: Duration) throws(RecordingError) -> Outcome {
        try core.withLock { (core) throws(RecordingError) -> Outcome in
            try core.writeVideo(frame, isKeyFrame: isKeyFrame, milliseconds: Self.milliseconds(timestamp))
        }
    }

    /// Writes one Opus packet (the whole payload of an Opus RTP packet) starting at `timestamp` on the archive's
    /// timeline; its duration is read from its TOC byte.
    ///
    /// - Throws: ``RecordingError/noSuchTrack(_:)`` without an audio track, ``RecordingError/closed``, or a libav
    ///   failure.
    @discardableResult
    public func writeAudio(_ packet: UnsafeRawBufferPointer, timestamp: Duration) throws(RecordingError) -> Outcome {
        try core.withLock { (core) throws(RecordingError) -> Outcome in
            try core.writeAudio(packet, milliseconds: Self.milliseconds(timestamp))
        }
    }

    /// Ends the last cluster, writes the cues and the duration and closes the file. A writer whose video track
    /// never got a key frame writes its header with a 16x16 placeholder size, so that held audio is kept.
    /// Calling it again does nothing. The writer's `deinit` closes it too (ignoring errors).
    ///
    /// - Throws: a libav failure while writing the end of the file (what was flushed before stays readable).
    public func close() throws(RecordingError) {
        try core.withLock { (core) throws(RecordingError) in try core.close() }
    }

    /// The counts so far.
    public var counters: Counters { core.withLock { $0.counters } }

    /// Whether the file header has been written (false while the video size waits for a key frame).
    public var hasWrittenHeader: Bool { core.withLock { $0.headerWritten } }

    /// The 19-byte Opus identification header (RFC 7845 §5.1), Matroska's CodecPrivate for `A_OPUS`: "OpusHead",
    /// version 1, channel count, pre-skip, input sample rate (little-endian), output gain 0, mapping family 0.
    public static func opusHead(channels: Int, preSkip: Int, inputSampleRate: Int = 48_000) -> [UInt8] {
        var head: [UInt8] = Array("OpusHead".utf8)
        head.append(1)
        head.append(UInt8(truncatingIfNeeded: channels))
        head.append(UInt8(truncatingIfNeeded: preSkip))
        head.append(UInt8(truncatingIfNeeded: preSkip >> 8))
        for shift in stride(from: 0, to: 32, by: 8) { head.append(UInt8(truncatingIfNeeded: inputSampleRate >> shift)) }
        head.append(contentsOf: [0, 0, 0])
        return head
    }

    /// Whole milliseconds of `duration`, rounded down.
    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let ms = attoseconds / 1_000_000_000_000_000
        let rem = attoseconds % 1_000_000_000_000_000
        return seconds * 1000 + ms - (rem < 0 ? 1 : 0)
    }
}

/// The libav state of one writer. Only ever used under the writer's `Mutex` (hence `@unchecked Sendable`: the
/// lock, not the type, keeps it to one thread at a time; it lets the caller's borrowed buffers be passed in).
private final class Core: @unchecked Sendable {
    private struct PendingPacket {
        var bytes: [UInt8]
        var milliseconds: Int64
    }

    let configuration: WebMWriter.Configuration
    private(set) var counters = WebMWriter.Counters()
    private(set) var headerWritten = false
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let packet: UnsafeMutablePointer<AVPacket>
    private let videoIndex: Int32?
    private let audioIndex: Int32?
    private var videoTimeBase = AVRational(num: 1, den: 1000)
    private var audioTimeBase = AVRational(num: 1, den: 1000)
    /// The previous video frame's time as given (frames before it are refused) and as written (at least 1 ms later).
    private var lastVideo: Int64?
    private var lastVideoWritten: Int64?
    private var lastAudio: Int64?
    private var sawKeyFrame = false
    private var pending: [PendingPacket] = []
    private static let millisecond = AVRational(num: 1, den: 1000)

    init(path: String, configuration: WebMWriter.Configuration) throws(RecordingError) {
        self.configuration = configuration
        var context: UnsafeMutablePointer<AVFormatContext>?
        let allocated = avformat_alloc_output_context2(&context, nil, "webm", path)
        guard allocated >= 0, let context else { throw .libav("avformat_alloc_output_context2", allocated) }
        guard let packet = av_packet_alloc() else {
            avformat_free_context(context)
            throw .libav("av_packet_alloc", TOKKIT_AVERROR_ENOMEM)
        }
        self.packet = packet
        self.context = context
        var next: Int32 = 0
        var failure: RecordingError?
        if let video = configuration.video {
            if let stream = avformat_new_stream(context, nil), let par = stream.pointee.codecpar {
                par.pointee.codec_type = AVMEDIA_TYPE_VIDEO
                par.pointee.codec_id = AV_CODEC_ID_VP8
                par.pointee.width = Int32(video.width ?? 0)
                par.pointee.height = Int32(video.height ?? 0)
                stream.pointee.time_base = Self.millisecond
                videoIndex = next
                next += 1
            } else {
                failure = .libav("avformat_new_stream", TOKKIT_AVERROR_ENOMEM)
                videoIndex = nil
            }
        } else {
            videoIndex = nil
        }
        if let audio = configuration.audio, failure == nil {
            if let stream = avformat_new_stream(context, nil), let par = stream.pointee.codecpar {
                par.pointee.codec_type = AVMEDIA_TYPE_AUDIO
                par.pointee.codec_id = AV_CODEC_ID_OPUS
                par.pointee.sample_rate = 48_000
                par.pointee.initial_padding = Int32(audio.preSkip)
                tokkit_av_set_channels(par, Int32(audio.channels))
                let head = WebMWriter.opusHead(channels: audio.channels, preSkip: audio.preSkip)
                let status = head.withUnsafeBufferPointer { tokkit_av_set_extradata(par, $0.baseAddress, Int32($0.count)) }
                if status < 0 { failure = .libav("extradata (OpusHead)", status) }
                stream.pointee.time_base = Self.millisecond
                audioIndex = next
            } else {
                failure = .libav("avformat_new_stream", TOKKIT_AVERROR_ENOMEM)
                audioIndex = nil
            }
        } else {
            audioIndex = nil
        }
        if failure == nil {
            failure = Self.setOptions(context, configuration)
        }
        if failure == nil {
            let opened = avio_open(&context.pointee.pb, "file:" + path, TOKKIT_AVIO_FLAG_WRITE)  // never a protocol URL
            if opened < 0 { failure = .libav("avio_open", opened) }
        }
        if failure == nil, configuration.video == nil || configuration.video?.width != nil {
            do throws(RecordingError) { try writeHeader() } catch { failure = error }
        }
        if let failure {
            release()
            throw failure
        }
    }

    deinit {
        release()
        var packet: UnsafeMutablePointer<AVPacket>? = self.packet
        av_packet_free(&packet)
    }

    private static func setOptions(_ context: UnsafeMutablePointer<AVFormatContext>,
                                   _ configuration: WebMWriter.Configuration) -> RecordingError? {
        let clusterMilliseconds = WebMWriter.milliseconds(configuration.clusterDuration)
        for (name, value) in [("cluster_time_limit", "\(clusterMilliseconds)"),
                              ("cluster_size_limit", "\(configuration.clusterSizeLimit)")] {
            let status = tokkit_av_set_muxer_option(context, name, value)
            if status < 0 { return .libav("av_opt_set \(name)", status) }
        }
        let delay = WebMWriter.milliseconds(configuration.maximumInterleaveDelay) * 1000
        let status = tokkit_av_set_format_option_int(context, "max_interleave_delta", max(1, delay))
        if status < 0 { return .libav("av_opt_set max_interleave_delta", status) }
        return nil
    }

    private func release() {
        guard let context else { return }
        if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
        self.context = nil
    }

    private func writeHeader() throws(RecordingError) {
        guard let context else { throw .closed }
        let status = avformat_write_header(context, nil)
        if status < 0 { throw .libav("avformat_write_header", status) }
        headerWritten = true
        if let videoIndex { videoTimeBase = context.pointee.streams[Int(videoIndex)]!.pointee.time_base }
        if let audioIndex { audioTimeBase = context.pointee.streams[Int(audioIndex)]!.pointee.time_base }
        try flush()
    }

    private func flush() throws(RecordingError) {
        guard let pb = context?.pointee.pb else { return }
        avio_flush(pb)
        if pb.pointee.error < 0 { throw .libav("avio_flush", pb.pointee.error) }
    }

    private func drop(_ reason: WebMWriter.DropReason) -> WebMWriter.Outcome {
        counters.dropped[reason, default: 0] += 1
        return .dropped(reason)
    }

    /// The checks every frame passes, then whether its time is after its track's previous frame.
    private func admit(_ bytes: UnsafeRawBufferPointer, _ milliseconds: Int64, last: Int64?) -> WebMWriter.DropReason? {
        if bytes.isEmpty { return .empty }
        if bytes.count > configuration.maximumFrameSize { return .oversized }
        if milliseconds < 0 { return .backwards }
        if let last, milliseconds < last { return .backwards }
        return nil
    }

    func writeVideo(_ frame: UnsafeRawBufferPointer, isKeyFrame: Bool,
                    milliseconds: Int64) throws(RecordingError) -> WebMWriter.Outcome {
        guard context != nil else { throw .closed }
        guard let videoIndex else { throw .noSuchTrack("video") }
        if let reason = admit(frame, milliseconds, last: lastVideo) { return drop(reason) }
        if !sawKeyFrame && !isKeyFrame { return drop(.beforeKeyFrame) }
        if !headerWritten {
            // The size comes from the key frame's VP8 header (RFC 6386 §9.1).
            guard let header = try? VP8PayloadHeader(parsing: frame), header.isKeyFrame,
                  let width = header.width, let height = header.height, width >= 2, height >= 2
            else { return drop(.invalid) }
            setVideoSize(width: width, height: height)
            try writeHeader()
            try writePending()
        }
        sawKeyFrame = true
        // Matroska times are milliseconds: a frame in the same millisecond as the previous one (RTP times under a
        // millisecond apart, as a capturer catching up sends them) goes 1 ms later. Two frames at one time make
        // players and ffmpeg report non-monotonic timestamps, and dropping it would break every delta frame after.
        let at = lastVideoWritten.map { max(milliseconds, $0 + 1) } ?? milliseconds
        if at != milliseconds { counters.videoFramesDelayed += 1 }
        lastVideo = milliseconds
        lastVideoWritten = at
        try emit(frame, stream: videoIndex, timeBase: videoTimeBase, milliseconds: at, durationMilliseconds: 0,
                 key: isKeyFrame)
        counters.videoFramesWritten += 1
        return .written
    }

    func writeAudio(_ bytes: UnsafeRawBufferPointer, milliseconds: Int64) throws(RecordingError) -> WebMWriter.Outcome {
        guard context != nil else { throw .closed }
        guard let audioIndex else { throw .noSuchTrack("audio") }
        if let reason = admit(bytes, milliseconds, last: lastAudio) { return drop(reason) }
        guard let opus = try? OpusPacket(parsing: bytes) else { return drop(.invalid) }
        if !headerWritten {
            guard pending.count < configuration.maximumPendingPackets else { return drop(.pendingFull) }
            pending.append(PendingPacket(bytes: Array(bytes), milliseconds: milliseconds))
            lastAudio = milliseconds
            return .pending
        }
        lastAudio = milliseconds
        try emit(bytes, stream: audioIndex, timeBase: audioTimeBase, milliseconds: milliseconds,
                 durationMilliseconds: Int64(opus.sampleCount / 48), key: true)
        counters.audioPacketsWritten += 1
        return .written
    }

    private func setVideoSize(width: Int, height: Int) {
        guard let context, let videoIndex, let par = context.pointee.streams[Int(videoIndex)]?.pointee.codecpar
        else { return }
        par.pointee.width = Int32(width)
        par.pointee.height = Int32(height)
    }

    private func writePending() throws(RecordingError) {
        guard let audioIndex else { return }
        let held = pending
        pending = []
        for packet in held {
            // Array.withUnsafeBytes rethrows untyped errors: carry the typed one out in a Result.
            let result: Result<Void, RecordingError> = packet.bytes.withUnsafeBytes { bytes in
                let samples = (try? OpusPacket(parsing: bytes))?.sampleCount ?? 960
                do throws(RecordingError) {
                    try emit(bytes, stream: audioIndex, timeBase: audioTimeBase, milliseconds: packet.milliseconds,
                             durationMilliseconds: Int64(samples / 48), key: true)
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            try result.get()
            counters.audioPacketsWritten += 1
        }
    }

    private func emit(_ bytes: UnsafeRawBufferPointer, stream: Int32, timeBase: AVRational, milliseconds: Int64,
                      durationMilliseconds: Int64, key: Bool) throws(RecordingError) {
        guard let context else { throw .closed }
        tokkit_av_packet_borrow(packet, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(bytes.count))
        let ts = av_rescale_q(milliseconds, Self.millisecond, timeBase)
        packet.pointee.pts = ts
        packet.pointee.dts = ts
        packet.pointee.duration = av_rescale_q(durationMilliseconds, Self.millisecond, timeBase)
        packet.pointee.stream_index = stream
        packet.pointee.flags = key ? TOKKIT_AV_PKT_FLAG_KEY : 0
        let status = av_interleaved_write_frame(context, packet)
        if status < 0 { throw .libav("av_interleaved_write_frame", status) }
        counters.payloadBytesWritten += bytes.count
        try flush()
    }

    func close() throws(RecordingError) {
        guard let context else { return }
        defer { release() }
        if !headerWritten {
            setVideoSize(width: 16, height: 16)
            try writeHeader()
            try writePending()
        }
        let status = av_write_trailer(context)
        if status < 0 { throw .libav("av_write_trailer", status) }
        try flush()
    }
}
