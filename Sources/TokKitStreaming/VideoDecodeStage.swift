import TokKitCodecs
import TokKitMedia

/// The work of a ``VideoReceivePipeline``'s decode thread for one frame: wait for its playout time
/// (``VideoPlayoutTiming``), VP8 decode, render the picture libvpx lends (no copy) stamped with its capture time in
/// this process's clock, report.
///
/// Owned by the decode thread (not `Sendable`); nothing is allocated per frame.
struct VideoDecodeStage {
    unowned let pipeline: VideoReceivePipeline
    private var decoder: VP8Decoder?
    /// The first frame's RTP timestamp and arrival: later frames are placed on the local clock by RTP delta.
    private var anchor: (rtp: UInt32, time: Duration)?
    private var meter = RateMeter()
    private var freezes = FreezeDetector()
    private var playout: VideoPlayoutTiming

    init(pipeline: VideoReceivePipeline, playout: VideoPlayoutTiming.Configuration) {
        self.pipeline = pipeline
        self.playout = VideoPlayoutTiming(playout)
        decoder = try? VP8Decoder(poolCapacity: 1)  // frames are lent, the pool stays empty
    }

    mutating func decode(_ bytes: UnsafeRawBufferPointer, _ header: EncodedFrameQueue.Header) {
        guard pipeline.isEnabled, let decoder else {
            pipeline.record { $0.framesDropped += 1 }
            return
        }
        let time = localTime(of: header)
        let renderAt = playout.renderTime(rtpTimestamp: header.rtpTimestamp, completedAt: header.receivedAt)
        guard pipeline.sleep(until: renderAt) else { return }  // closing
        let targets = pipeline.frameTargets()
        var format: VideoFormat?
        var decodeTime = Duration.zero
        let started = MonotonicClock.now()
        do throws(CodecError) {
            // Lent, not copied: the renderer runs right here, and copies what it keeps (VideoRender's contract).
            try decoder.decode(bytes, timestamp: time) { frame in
                decodeTime = MonotonicClock.now() - started
                format = frame.format
                targets.renderer?.renderVideoFrame(frame)
            }
        } catch {
            pipeline.decodeFailed()
            return
        }
        guard let format else { return }
        let renderedAt = MonotonicClock.now()
        let refreshed = meter.record(bytes: bytes.count, at: renderedAt)
        let (fps, bps) = (meter.framesPerSecond, meter.bitsPerSecond)
        freezes.frameRendered(at: renderedAt)
        let (freezeCount, frozen, total) =
            (freezes.freezeCount, freezes.totalFreezesDuration, freezes.totalFramesDuration)
        let (delay, target) = (playout.delay, playout.targetDelay)
        let rendered = RenderedFrameInfo(rtpTimestamp: header.rtpTimestamp, receivedAt: header.receivedAt,
                                         renderedAt: renderedAt, isKeyframe: header.isKeyframe,
                                         scheduledAt: min(renderAt, renderedAt))
        pipeline.record { s in
            s.lastRenderedFrame = rendered
            (s.freezeCount, s.totalFreezesDuration, s.totalFramesDuration) = (freezeCount, frozen, total)
            (s.playoutDelay, s.targetPlayoutDelay) = (delay, target)
            s.framesDecoded += 1
            s.totalDecodeTime += decodeTime
            if header.isKeyframe { s.keyframesDecoded += 1 }
            s.width = format.width
            s.height = format.height
            if refreshed { (s.framesPerSecond, s.bitrate) = (fps, bps) }
        }
        targets.observer?(rendered)
        if let first = pipeline.firstFrameRendered() { first(format) }
    }

    /// The frame's capture time on this process's clock: the first frame's arrival plus the RTP time since.
    private mutating func localTime(of header: EncodedFrameQueue.Header) -> Duration {
        guard let anchor else {
            anchor = (header.rtpTimestamp, header.receivedAt)
            return header.receivedAt
        }
        let ticks = Int64(Int32(bitPattern: header.rtpTimestamp &- anchor.rtp))
        return anchor.time + .microseconds(ticks * 1_000 / 90)
    }
}
