import TokKitCodecs
import TokKitMedia
import TokKitPeer
import TokKitRTP

/// The work of a ``VideoSendPipeline``'s encode thread for one frame: convert, scale and rotate to upright
/// I420 at the encode size, preview, encode once, packetize once into the pipeline's ``PacketSendQueue``, from which
/// its sending thread sends every packet to every connected peer at the pacer's rate (so a key frame does not leave
/// in one burst, and pacing never holds this thread). When the queue is behind by more than
/// ``SendBacklogGate/maximumBacklog`` at the pacer's rate, or more than half full, the frame is not encoded (WebRTC's
/// frame dropper). A single camera stream is encoded smaller while its bitrate cannot carry the configured size
/// (``ResolutionAdapter``; ``VideoEncodeSettings/adaptsResolution``); the preview keeps the configured size.
///
/// Owned by the encode thread (not `Sendable`); everything it uses per frame is preallocated.
struct VideoEncodeStage {
    /// One spatial layer's encoder and packetizer (one layer unless simulcast: ``VideoEncodeSettings/simulcastLayers``).
    private struct LayerEncoder {
        let encoder: VP8Encoder
        let packetizer: VP8Packetizer
        let width: Int
        let height: Int
        /// The bitrate the encoder runs at, so an estimate moving above the configured bitrate costs nothing.
        var applied: Int
    }

    unowned let pipeline: VideoSendPipeline
    private let converter = VideoConverter(pool: VideoFramePool(capacity: 8))
    /// Smallest first; the last is the full encode size. Empty when the encoder could not be made.
    private var layers: [LayerEncoder] = []
    private var encoderSettings: VideoEncodeSettings?
    private var generation = -1
    private var meter = RateMeter()
    /// The lowest peer estimate last taken from the pipeline (`Int.max`: none), kept across encoder changes.
    private var cap = Int.max
    private var gate = SendBacklogGate()
    /// The single layer's size when it adapts to the bitrate (nil: simulcast, screen content, or turned off).
    private var adapter: ResolutionAdapter?

    init(pipeline: VideoSendPipeline) {
        self.pipeline = pipeline
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
        guard !layers.isEmpty else {
            pipeline.record { $0.framesDropped += 1 }
            return
        }
        // The send queue is behind, or more than half full: skip this frame (a keyframe asked for waits for the
        // next one encoded; so does the one a peer that just became live needs).
        let queue = pipeline.sendQueue
        let backlog = queue.backlog
        guard gate.admits(backlog: backlog.time, packets: backlog.packets, capacity: queue.capacity) else {
            if control.newlyLive { pipeline.requestKeyframe() }
            let (skipped, forRoom) = (gate.skipped, gate.skippedForRoom)
            pipeline.record { s in
                s.framesDropped += 1
                s.framesSkippedForBacklog = skipped
                s.framesSkippedForQueueRoom = forRoom
            }
            return
        }
        let force = pipeline.takeKeyframeRequest() || control.newlyLive
        if force, let settings = encoderSettings {
            let bitrate = target(settings)
            if adapter?.keyframeComing(target: bitrate) == true { resize(settings) }  // one keyframe, not two
        }
        let timestamp = pipeline.clockMapping.timestamp(at: image.timestamp)
        // The smaller layers first (scaled from the one converted picture), the full size last, all with the
        // capture's timestamp.
        var (quantizer, keyframe): (Int?, Bool) = (nil, false)
        for k in layers.indices {
            let top = k == layers.count - 1
            let picture: VideoFrame
            if layers[k].width == image.format.width && layers[k].height == image.format.height {
                picture = image
            } else {
                do throws(VideoFrameError) {
                    picture = try converter.scale(image, width: layers[k].width, height: layers[k].height)
                } catch {
                    if top { pipeline.record { $0.framesDropped += 1 } }
                    continue
                }
            }
            let encoder = layers[k].encoder  // a copy: `send` below changes `self`
            var produced = false
            let started = MonotonicClock.now()
            do throws(CodecError) {
                try encoder.encode(picture, forceKeyframe: force) { encoded in
                    // libvpx has done all its work by the first output: time it alone (a second output, which this
                    // configuration never makes, would otherwise count the first one's sending).
                    let encodeTime = produced ? .zero : MonotonicClock.now() - started
                    produced = true
                    if top { (quantizer, keyframe) = (encoded.quantizer, encoded.isKeyframe) }
                    send(encoded, layer: k, timestamp: timestamp, to: control.peers, detachments: control.detachments,
                         encodeTime: encodeTime)
                }
            } catch {
                if top { pipeline.record { $0.framesDropped += 1 } }
                continue
            }
            // Rate control skipped it (screen tuning).
            if !produced && top { pipeline.record { $0.framesDropped += 1 } }
        }
        if let settings = encoderSettings {
            let bitrate = target(settings)
            if adapter?.update(target: bitrate, quantizer: quantizer, keyframe: keyframe, at: MonotonicClock.now()) == true {
                resize(settings)
            }
        }
    }

    /// A new encoder for the single layer at the ``adapter``'s size, with the old packetizer (picture IDs go on);
    /// its first frame is a keyframe. If libvpx cannot make it, the old encoder stays and the size stops adapting.
    private mutating func resize(_ settings: VideoEncodeSettings) {
        guard let size = adapter?.size, layers.count == 1, let old = layers.last else { return }
        guard let encoder = Self.encoder(width: size.width, height: size.height, bitrate: old.applied, settings)
        else {
            adapter = nil
            return
        }
        layers = [LayerEncoder(encoder: encoder, packetizer: old.packetizer, width: size.width, height: size.height,
                               applied: old.applied)]
        pipeline.record { s in
            (s.encodedWidth, s.encodedHeight) = size
            s.resolutionChanges += 1
        }
    }

    /// Packetizes `encoded` (layer `layer`) once into the send queue, for the sending thread to pace out to every
    /// peer; records the frame (`encodeTime`: in the encoder, before this). Frame counts are the full-size layer's;
    /// bytes are every layer's. A frame goes into the queue whole or not at all: one that does not fit (the slots
    /// left are fewer than its packets) is not queued and asks for a keyframe (a frame cut short would follow on in
    /// sequence numbers, and a receiver taking the next frame's start as its end would decode it truncated).
    private mutating func send(_ encoded: EncodedVideoFrame, layer: Int, timestamp: UInt32, to peers: [PeerConnection],
                               detachments: Int, encodeTime: Duration) {
        let count = layers.count
        let top = layer == count - 1
        var header = PacketSendQueue.Header(timestamp: timestamp, marker: false, layer: layer, layers: count,
                                            frameBytes: encoded.bytes.count, estimate: cap,
                                            pacingFactor: pipeline.pacingFactor(at: MonotonicClock.now()),
                                            detachments: detachments, peers: peers)
        let frameBytes = encoded.bytes.count, estimate = cap, factor = header.pacingFactor
        let queue = pipeline.sendQueue
        let packetizer = layers[layer].packetizer
        // Only this thread pushes, so the free slots can only grow until the frame is in.
        let packets = encoded.bytes.count / max(1, packetizer.maximumPayloadSize - 8) + 2  // 8: the longest descriptor and more
        var overflowed = queue.capacity - queue.count < packets
        packetizer.packetize(encoded.bytes, temporalLayer: encoded.temporalLayer,
                             layerSync: encoded.layerSync) { payload, marker in
            guard !overflowed else { return }
            header.marker = marker
            header.pacedNanoseconds = SendBacklogGate.pacedTime(payloadBytes: payload.count, frameBytes: frameBytes,
                                                                estimate: estimate, factor: factor).nanoseconds
            if !queue.push(payload, header: header) { overflowed = true }
            header.frameBytes = 0
        }
        if overflowed { pipeline.requestKeyframe() }
        let refreshed = top ? meter.record(bytes: encoded.bytes.count, at: MonotonicClock.now()) : false
        let (fps, bps) = (meter.framesPerSecond, meter.bitsPerSecond)
        pipeline.record { s in
            if top {
                s.framesEncoded += 1
                if encoded.isKeyframe { s.keyframesEncoded += 1 }
            }
            if overflowed { s.sendQueueOverflows += 1 }
            s.totalEncodeTime += encodeTime
            s.bytesEncoded += UInt64(encoded.bytes.count)
            if refreshed { (s.framesPerSecond, s.bitrate) = (fps, bps) }
        }
    }

    /// (Re)creates the encoders for new settings; only a bitrate change keeps them.
    private mutating func configure(_ settings: VideoEncodeSettings) {
        let layout = layout(settings)
        if !layers.isEmpty, let old = encoderSettings, old.width == settings.width, old.height == settings.height,
           old.contentHint == settings.contentHint, old.framesPerSecond == settings.framesPerSecond,
           old.temporalLayers == settings.temporalLayers,
           old.adaptsResolution == settings.adaptsResolution, layout.count == layers.count {
            encoderSettings = settings
            applyBitrate(settings)
            return
        }
        if layout.count > 1 || !settings.adaptsResolution || settings.isScreenContent {
            adapter = nil
        } else if let current = adapter, current.width == settings.width, current.height == settings.height,
                  current.framesPerSecond == settings.framesPerSecond {
            // The same size (temporal layers turned on, say): the adapted size stays.
        } else {
            adapter = ResolutionAdapter(width: settings.width, height: settings.height,
                                        framesPerSecond: settings.framesPerSecond)
        }
        makeEncoders(layout, settings)
    }

    /// Makes an encoder and a packetizer per layer of `layout` (a single layer at the ``adapter``'s size), and asks
    /// for a keyframe.
    private mutating func makeEncoders(_ layout: SimulcastLayout, _ settings: VideoEncodeSettings) {
        layers = []
        for layer in layout.layers {
            let (width, height) = layout.count == 1 ? adapter?.size ?? (layer.width, layer.height)
                                                    : (layer.width, layer.height)
            guard let encoder = Self.encoder(width: width, height: height, bitrate: layer.bitrate, settings),
                let packetizer = try? VP8Packetizer()
            else {
                layers = []
                break
            }
            layers.append(LayerEncoder(encoder: encoder, packetizer: packetizer, width: width,
                                       height: height, applied: layer.bitrate))
        }
        encoderSettings = settings
        pipeline.setSimulcasting(layers.count > 1)
        let bitrate = target(settings)
        let size = layers.last.map { ($0.width, $0.height) } ?? (0, 0)
        pipeline.record { s in
            s.targetBitrate = bitrate
            (s.encodedWidth, s.encodedHeight) = size
        }
        pipeline.requestKeyframe()
    }

    /// A VP8 encoder for one layer of `settings` at `width` × `height` and `bitrate`; nil if libvpx cannot make it.
    private static func encoder(width: Int, height: Int, bitrate: Int, _ settings: VideoEncodeSettings) -> VP8Encoder? {
        var vp8 = VP8EncoderSettings(width: width, height: height, framesPerSecond: settings.framesPerSecond,
                                     bitrate: bitrate, contentHint: settings.contentHint)
        vp8.temporalLayers = settings.temporalLayers
        return try? VP8Encoder(settings: vp8)
    }

    /// The configured bitrate capped by the peers' lowest estimate, not below ``VideoEncodeSettings``' 10 kb/s floor.
    private func target(_ settings: VideoEncodeSettings) -> Int { min(settings.bitrate, max(cap, 10_000)) }

    /// The layers of `settings` at the capped bitrate.
    private func layout(_ settings: VideoEncodeSettings) -> SimulcastLayout {
        SimulcastLayout(width: settings.width, height: settings.height, bitrate: target(settings),
                        maximumLayers: settings.simulcastLayers, exact: settings.simulcastLayersExact)
    }

    /// Sets the encoders to the configured bitrate capped by the peers' lowest estimate (split over the layers).
    private mutating func applyBitrate(_ settings: VideoEncodeSettings) {
        let bitrate = target(settings)
        let shares = layers.count == 1 ? [bitrate] : SimulcastLayout.split(bitrate, layers: layers.count)
        var changed = false
        for k in layers.indices where shares[k] != layers[k].applied {
            do throws(CodecError) { try layers[k].encoder.setBitrate(shares[k]) } catch { continue }
            layers[k].applied = shares[k]
            changed = true
        }
        if changed { pipeline.record { $0.targetBitrate = bitrate } }
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
