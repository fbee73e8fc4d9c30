import TokKit
import TokKitCodecs
import TokKitMedia
import TokKitRecording

/// What the composer reads from one stream: the picture to show on each canvas and its audio, period by period,
/// each asked for at its time on the archive's timeline (so that a stream can place both by its sender's clock).
///
/// ``ComposedStreamInput`` is the real one (a subscribed stream); tests give their own.
protocol ComposerInput: AnyObject, Sendable {
    /// The stream.
    var streamID: StreamID { get }
    /// The decoded I420 picture to show at `time` on the archive's timeline, `nil` before the first (the stream
    /// then takes no tile). Asked once per stream and canvas, times never going back.
    func picture(at time: Duration, lead: Duration) -> VideoFrame?
    /// Fills all of `output` (mono, 48 kHz) with the stream's audio for the period starting at `time` on the
    /// archive's timeline; `false` (nothing written) when it has none. Asked once per period, in order.
    func readAudio(into output: UnsafeMutableBufferPointer<Int16>, at time: Duration) -> Bool
}

/// The data plane of a composed archive: at each step, mixes the streams' audio period by period into Opus and
/// draws their pictures due into one canvas encoded in VP8, both written to one ``WebMWriter`` at the times a
/// ``CompositionClock`` schedules.
///
/// The layout (``CompositionLayout``) is recomputed when the streams that have a picture change, and every change
/// is recorded. Buffers (mix, Opus packet, canvas pool) are allocated once; per step nothing is allocated unless
/// the layout changes.
///
/// Threading: not `Sendable` in spirit; it belongs to the composing thread (``advance(to:inputs:)``), and
/// ``finish()`` is called once that thread has stopped. `@unchecked Sendable` only so that the thread's closure
/// can hold it.
final class ArchiveComposer: @unchecked Sendable {
    typealias LayoutChange = ComposedArchiver.LayoutChange

    /// Running counts.
    struct Counters: Hashable, Sendable {
        var videoFrames = 0
        var audioPackets = 0
        var videoFramesSkipped = 0
        var audioPeriodsSkipped = 0
        /// Audio periods in which at least one stream was heard.
        var audiblePeriods = 0
        /// The end of the last frame or packet written, on the archive's timeline.
        var duration: Duration = .zero
    }

    let settings: ComposedArchiveSettings
    let writer: WebMWriter
    private(set) var clock: CompositionClock
    private(set) var layoutChanges: [LayoutChange] = []
    private(set) var counters = Counters()
    /// The first failure (the disk, an encoder); composing stopped then.
    private(set) var failure: String?

    private let videoEncoder: VP8Encoder?
    private let audioEncoder: OpusEncoder?
    private let canvasPool = VideoFramePool(capacity: 2)
    private let samplesPerPeriod: Int
    private let mix: UnsafeMutableBufferPointer<Int32>
    private let one: UnsafeMutableBufferPointer<Int16>
    private let pcm: UnsafeMutableBufferPointer<Int16>
    private let packet: UnsafeMutableRawBufferPointer
    private var shown: [StreamID] = []
    private var cells: [CanvasRect] = []
    /// The pictures of one canvas and their streams, tile by tile (slots kept from canvas to canvas: nothing
    /// allocated).
    private var pictures: [VideoFrame?] = Array(repeating: nil, count: CompositionLayout.maximumTiles)
    private var streams: [StreamID] = Array(repeating: StreamID(""), count: CompositionLayout.maximumTiles)

    /// Opens `path` (truncating it) with the tracks `settings` asks for and makes the encoders.
    init(path: String, settings: ComposedArchiveSettings) throws(ComposedArchiveError) {
        try settings.validate()
        self.settings = settings
        let clock = CompositionClock(framesPerSecond: settings.framesPerSecond)
        self.clock = clock
        samplesPerPeriod = 48_000 * Int(clock.audioPeriod / .milliseconds(1)) / 1000
        do throws(CodecError) {
            videoEncoder = try settings.hasVideo ? VP8Encoder(settings: VP8EncoderSettings(
                width: settings.width, height: settings.height, framesPerSecond: settings.framesPerSecond,
                bitrate: settings.effectiveVideoBitrate, keyframeMaxInterval: 2 * settings.framesPerSecond,
                errorResilient: false)) : nil
            audioEncoder = try settings.hasAudio ? OpusEncoder(settings: OpusEncoderSettings(
                bitrate: settings.audioBitrate, application: .audio, inbandFEC: false, expectedPacketLoss: 0)) : nil
        } catch {
            throw .codec(error)
        }
        do throws(RecordingError) {
            // Opus' encoder delay at 48 kHz (lookahead): the decoder skips it, so the mix starts at time zero.
            writer = try WebMWriter(path: path, configuration: WebMWriter.Configuration(
                video: settings.hasVideo ? .init(width: settings.width, height: settings.height) : nil,
                audio: settings.hasAudio ? .init(channels: 1, preSkip: Self.opusLookahead) : nil))
        } catch {
            throw .recording(error)
        }
        mix = .allocate(capacity: samplesPerPeriod)
        one = .allocate(capacity: samplesPerPeriod)
        pcm = .allocate(capacity: samplesPerPeriod)
        packet = .allocate(byteCount: OpusEncoder.maximumPacketSize, alignment: 8)
    }

    deinit {
        mix.deallocate()
        one.deallocate()
        pcm.deallocate()
        packet.deallocate()
    }

    /// libopus' lookahead at 48 kHz for the `audio` application (2.5 ms + 4 ms).
    static let opusLookahead = 312

    /// Makes and writes whatever is due at `elapsed` (since the archive's start): audio periods mixed from
    /// `inputs`, and the newest due canvas. With an `end` (the archive time recording was asked to stop at), nothing
    /// scheduled after it is made, however long the thread keeps ticking while the archive closes. Returns `false`
    /// once composing has failed (see ``failure``).
    @discardableResult
    func advance(to elapsed: Duration, inputs: [any ComposerInput], end: Duration? = nil) -> Bool {
        guard failure == nil else { return false }
        let due = clock.due(at: end.map { min(elapsed, $0) } ?? elapsed)
        counters.audioPeriodsSkipped = clock.audioPeriodsSkipped
        counters.videoFramesSkipped = clock.videoFramesSkipped
        do throws(ComposedArchiveError) {
            if let audioEncoder {
                for period in due.audioPeriods { try writeAudio(period, inputs: inputs, encoder: audioEncoder) }
            } else {
                for period in due.audioPeriods {  // keep pace
                    for input in inputs { _ = input.readAudio(into: one, at: clock.audioTime(period)) }
                }
            }
            if let frame = due.videoFrame, let videoEncoder { try writeVideo(frame, inputs: inputs, encoder: videoEncoder) }
        } catch {
            failure = "\(error)"
            return false
        }
        return true
    }

    /// Closes the file (cues, duration). Returns the first failure, if any.
    func finish() -> String? {
        do throws(RecordingError) { try writer.close() } catch { if failure == nil { failure = "\(error)" } }
        return failure
    }

    private func writeAudio(_ period: Int, inputs: [any ComposerInput], encoder: OpusEncoder) throws(ComposedArchiveError) {
        let n = samplesPerPeriod
        for i in 0..<n { mix[i] = 0 }
        var heard = false
        let at = clock.audioTime(period)
        for input in inputs where input.readAudio(into: one, at: at) {
            heard = true
            for i in 0..<n { mix[i] &+= Int32(one[i]) }
        }
        for i in 0..<n { pcm[i] = Int16(clamping: mix[i]) }
        if heard { counters.audiblePeriods += 1 }
        let size: Int
        do throws(CodecError) { size = try encoder.encode(UnsafeBufferPointer(pcm), into: packet) } catch { throw .codec(error) }
        do throws(RecordingError) {
            if case .written = try writer.writeAudio(UnsafeRawBufferPointer(rebasing: packet[0..<size]), timestamp: at) {
                counters.audioPackets += 1
            }
        } catch {
            throw .recording(error)
        }
        counters.duration = max(counters.duration, at + clock.audioPeriod)
    }

    private func writeVideo(_ frame: Int, inputs: [any ComposerInput], encoder: VP8Encoder) throws(ComposedArchiveError) {
        let at = clock.videoTime(frame)
        let canvas: VideoFrame
        do throws(VideoFrameError) {
            canvas = try canvasPool.makeFrame(format: .i420(width: settings.width, height: settings.height,
                                                            fps: Double(settings.framesPerSecond)), timestamp: at)
            try CanvasCompositor.clear(canvas)
            // The streams with a picture take the tiles, in the order the streams came, each with its picture
            // nearest this canvas' time; the others are heard, not shown.
            let time = at
            var count = 0
            for input in inputs where count < CompositionLayout.maximumTiles {
                guard let picture = input.picture(at: time, lead: clock.frameInterval / 2) else { continue }
                pictures[count] = picture
                streams[count] = input.streamID
                count += 1
            }
            defer { for i in 0..<count { pictures[i] = nil } }  // the pool's frames go back
            var changed = count != shown.count
            for i in 0..<count where !changed && shown[i] != streams[i] { changed = true }
            if changed {
                shown = Array(streams[0..<count])
                cells = CompositionLayout.cells(count: shown.count, width: settings.width, height: settings.height)
                layoutChanges.append(LayoutChange(at: at, streams: shown))
            }
            for tile in 0..<min(count, cells.count) {
                guard let picture = pictures[tile] else { continue }
                guard let rect = CompositionLayout.fit(width: picture.format.width, height: picture.format.height,
                                                       into: cells[tile]) else { continue }
                do throws(VideoFrameError) {
                    try CanvasCompositor.draw(picture, into: canvas, at: rect)
                } catch {
                    if case .expired = error { continue }  // a picture taken back: its tile stays black
                    throw error
                }
            }
        } catch {
            throw .composition(error)
        }
        var written: RecordingError?
        var wrote = false
        do throws(CodecError) {
            try encoder.encode(canvas, forceKeyframe: frame == 0 || counters.videoFrames == 0) { encoded in
                guard written == nil else { return }
                do throws(RecordingError) {
                    if case .written = try writer.writeVideo(encoded.bytes, isKeyFrame: encoded.isKeyframe, timestamp: at) {
                        wrote = true
                    }
                } catch {
                    written = error
                }
            }
        } catch {
            throw .codec(error)
        }
        if let written { throw .recording(written) }
        if wrote { counters.videoFrames += 1 }
        counters.duration = max(counters.duration, at + clock.frameInterval)
    }
}
