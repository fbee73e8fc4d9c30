import TokKitCodecs
import TokKitMedia
import TokKitPeer
import TokKitRTP

/// The work of a ``VideoSendPipeline``'s encode thread for one frame: convert, scale and rotate to upright
/// I420 at the encode size, preview, encode once, packetize once, send to every connected peer, the packets
/// spaced by a ``PacketPacer`` (so a key frame does not leave in one burst).
///
/// Owned by the encode thread (not `Sendable`); everything it uses per frame is preallocated.
struct VideoEncodeStage {
    unowned let pipeline: VideoSendPipeline
    private let converter = VideoConverter(pool: VideoFramePool(capacity: 6))
    private var encoder: VP8Encoder?
    private var encoderSettings: VideoEncodeSettings?
    private var generation = -1
    private let packetizer: VP8Packetizer
    private var meter = RateMeter()
    /// The lowest peer estimate last taken from the pipeline (`Int.max`: none), kept across encoder changes.
    private var cap = Int.max
    /// The bitrate the encoder runs at, so an estimate moving above the configured bitrate costs nothing.
    private var applied: Int?
    private var pacer = PacketPacer(targetBitrate: 500_000)

    init(pipeline: VideoSendPipeline) {
        self.pipeline = pipeline
        do throws(RTPError) { packetizer = try VP8Packetizer() } catch {
            preconditionFailure("the default VP8 packet size is valid: \(error)")
        }
    }

    mutating func process(_ frame: VideoFrame) {
        let control = pipeline.frameControl()
        let image: VideoFrame
        do throws(VideoFrameError) {
            image = try prepare(frame, for: control.settings)
        } catch {
            pipeline.record { $0.framesDropped += 1 }
            return
        }
        if let preview = control.preview {
            preview.renderVideoFrame(image)
            pipeline.record { $0.framesPreviewed += 1 }
        }
        guard control.enabled, !control.peers.isEmpty else { return }
        if control.settingsGeneration != generation {
            generation = control.settingsGeneration
            configure(control.settings)
        }
        if let cap = pipeline.takeBitrateCap() {
            self.cap = cap
            if let settings = encoderSettings { applyBitrate(settings) }
        }
        guard let encoder else {
            pipeline.record { $0.framesDropped += 1 }
            return
        }
        let force = pipeline.takeKeyframeRequest() || control.newlyLive
        let timestamp = pipeline.clockMapping.timestamp(at: image.timestamp)
        var produced = false
        let started = MonotonicClock.now()
        do throws(CodecError) {
            try encoder.encode(image, forceKeyframe: force) { encoded in
                // libvpx has done all its work by the first output: time it alone (a second output, which this
                // configuration never makes, would otherwise count the first one's sending).
                let encodeTime = produced ? .zero : MonotonicClock.now() - started
                produced = true
                send(encoded, timestamp: timestamp, to: control.peers, encodeTime: encodeTime)
            }
        } catch {
            pipeline.record { $0.framesDropped += 1 }
            return
        }
        if !produced { pipeline.record { $0.framesDropped += 1 } }  // rate control skipped it (screen tuning)
    }

    /// Packetizes `encoded` once and sends every packet to every peer; records the frame (`encodeTime`: in the
    /// encoder, before this).
    private mutating func send(_ encoded: EncodedVideoFrame, timestamp: UInt32, to peers: [PeerConnection],
                               encodeTime: Duration) {
        var sent = 0, failed = 0, closing = false
        // Paced at the path's rate as the peers' estimates have it (libwebrtc paces at the estimate, not at the
        // encoder's target: an encoder overshooting a low configured bitrate must not be held to it on a fast path).
        // Before the first estimate nothing is known of the path: the first keyframe goes at once (paced at the
        // configured bitrate, it added ~30 ms to the first frame a new subscriber sees).
        let paced = cap != Int.max
        if paced { pacer.beginFrame(bytes: encoded.bytes.count, targetBitrate: cap) }
        packetizer.packetize(encoded.bytes) { payload, marker in
            guard !closing else { return }
            if paced {
                // The size on the wire: payload, RTP header and extensions, SRTP tag, UDP/IP.
                let wait = pacer.delay(sending: payload.count + Self.packetOverhead, at: MonotonicClock.now())
                if wait > .zero && !pipeline.pace(until: MonotonicClock.now() + wait) {
                    closing = true
                    return
                }
            }
            let result = PeerFanOut.send(.video, payload: payload, timestamp: timestamp, marker: marker, to: peers)
            sent += result.sent
            failed += result.failed
        }
        let refreshed = meter.record(bytes: encoded.bytes.count, at: MonotonicClock.now())
        let (fps, bps) = (meter.framesPerSecond, meter.bitsPerSecond)
        pipeline.record { s in
            s.framesEncoded += 1
            s.totalEncodeTime += encodeTime
            if encoded.isKeyframe { s.keyframesEncoded += 1 }
            s.bytesEncoded += UInt64(encoded.bytes.count)
            s.packetsSent += sent
            s.sendErrors += failed
            if refreshed { (s.framesPerSecond, s.bitrate) = (fps, bps) }
        }
    }

    /// Bytes a packet carries on the wire beside its VP8 payload: RTP header with extensions (~24), SRTP tag (10),
    /// UDP and IPv4 headers (28).
    static let packetOverhead = 62

    /// (Re)creates the encoder for new settings; only a bitrate change keeps it.
    private mutating func configure(_ settings: VideoEncodeSettings) {
        if encoder != nil, let old = encoderSettings, old.width == settings.width, old.height == settings.height,
           old.contentHint == settings.contentHint, old.framesPerSecond == settings.framesPerSecond {
            encoderSettings = settings
            applyBitrate(settings)
            return
        }
        encoder = try? VP8Encoder(settings: VP8EncoderSettings(
            width: settings.width, height: settings.height, framesPerSecond: settings.framesPerSecond,
            bitrate: target(settings), contentHint: settings.contentHint))
        encoderSettings = settings
        let bitrate = target(settings)
        applied = encoder == nil ? nil : bitrate
        pipeline.record { $0.targetBitrate = bitrate }
        pipeline.requestKeyframe()
    }

    /// The configured bitrate capped by the peers' lowest estimate, not below ``VideoEncodeSettings``' 10 kb/s floor.
    private func target(_ settings: VideoEncodeSettings) -> Int { min(settings.bitrate, max(cap, 10_000)) }

    /// Sets the encoder to the configured bitrate capped by the peers' lowest estimate.
    private mutating func applyBitrate(_ settings: VideoEncodeSettings) {
        let bitrate = target(settings)
        guard bitrate != applied, let encoder else { return }
        do throws(CodecError) { try encoder.setBitrate(bitrate) } catch { return }
        applied = bitrate
        pipeline.record { $0.targetBitrate = bitrate }
    }

    /// `frame` as upright I420 of the encode size, in pooled memory (or `frame` itself when it already is).
    private func prepare(_ frame: VideoFrame, for settings: VideoEncodeSettings) throws(VideoFrameError) -> VideoFrame {
        var image = frame.format.pixelFormat == .i420 ? frame : try converter.convert(frame, to: .i420)
        if image.orientation != .up { image = try converter.rotateUpright(image) }
        if image.format.width != settings.width || image.format.height != settings.height {
            image = try converter.scale(image, width: settings.width, height: settings.height)
        }
        return image
    }
}
