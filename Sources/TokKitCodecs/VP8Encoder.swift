import CVPX
import TokKitMedia

/// A libvpx VP8 encoder configured for real-time calls (see ``VP8EncoderSettings`` for the tuning).
///
/// Threading: not `Sendable`. Create, use and drop it on one thread (the publisher's encode thread); libvpx is
/// not thread-safe per context. Cross-thread requests (a PLI or FIR arriving on the network thread) must be
/// relayed to that thread, which then calls ``requestKeyframe()``.
///
/// Steady state allocates nothing per frame: the context, configuration and `vpx_image_t` wrapper are allocated
/// once, the frame's planes are wrapped in place, and compressed output is lent to the caller straight from
/// libvpx's packet.
public final class VP8Encoder {
    /// The settings in force (``setBitrate(_:)`` updates ``VP8EncoderSettings/bitrate``).
    public private(set) var settings: VP8EncoderSettings

    private let context: UnsafeMutablePointer<vpx_codec_ctx_t>
    private let config: UnsafeMutablePointer<vpx_codec_enc_cfg_t>
    private let image: UnsafeMutablePointer<vpx_image_t>
    private var keyframeRequested = false
    /// Whether libvpx has encoded a frame yet (the first one's key frame leaves the rate buffer alone).
    private var hasEncoded = false
    private var firstTimestamp: Duration?
    private var lastPTS: vpx_codec_pts_t = -1
    /// Temporal layering (one layer: nothing per frame).
    private let pattern: VP8TemporalPattern
    /// The next frame's position in ``pattern``.
    private var patternIndex = 0
    /// Frames since the last keyframe (temporal layers: keyframes are placed by the encoder itself, at a TL0 frame).
    private var framesSinceKeyframe = 0

    /// The highest quantizer rate control may choose, on libvpx's 0...63 scale (WebRTC's 56): a frame at it is as
    /// small as this size and content can be made.
    public static let maximumQuantizer = 56

    /// RTP's video clock: timestamps reach libvpx in 90 kHz ticks.
    private static let clockRate: Int64 = 90_000

    /// Creates and configures the encoder.
    ///
    /// - Throws: ``CodecError/invalidSettings(_:)`` for out-of-range settings, ``CodecError/libvpx(operation:status:detail:)``
    ///   when libvpx rejects the configuration.
    public init(settings: VP8EncoderSettings) throws(CodecError) {
        try settings.validate()
        self.settings = settings
        pattern = VP8TemporalPattern(layers: settings.temporalLayers)
        context = .allocate(capacity: 1)
        context.initialize(to: vpx_codec_ctx_t())
        config = .allocate(capacity: 1)
        config.initialize(to: vpx_codec_enc_cfg_t())
        image = .allocate(capacity: 1)
        image.initialize(to: vpx_image_t())
        var initialized = false
        do throws(CodecError) {
            try Self.check("vpx_codec_enc_config_default", tokkit_vpx_vp8_enc_config_default(config), nil)
            Self.configure(config, settings)
            try Self.check("vpx_codec_enc_init", tokkit_vpx_vp8_enc_init(context, config), context)
            initialized = true
            try applyControls()
        } catch {
            if initialized { vpx_codec_destroy(context) }
            Self.free(context, config, image)
            throw error
        }
    }

    deinit {
        vpx_codec_destroy(context)
        Self.free(context, config, image)
    }

    /// Encodes one I420 frame of the configured size and lends each compressed frame to `body` (normally one;
    /// none when rate control drops the frame, which only screen-content tuning allows).
    ///
    /// The frame's ``VideoFrame/timestamp`` drives rate control, so it must advance with capture time.
    /// - Parameter forceKeyframe: encode a keyframe (so does a pending ``requestKeyframe()``).
    /// - Throws: ``CodecError/unsupportedFormat(expected:actual:)`` for any other pixel format or size (nothing is
    ///   encoded), ``CodecError/expiredFrame`` for a borrowed frame whose owner has taken it back (nothing is
    ///   encoded), ``CodecError/libvpx(operation:status:detail:)`` if libvpx fails.
    public func encode(_ frame: VideoFrame, forceKeyframe: Bool = false, _ body: (EncodedVideoFrame) -> Void) throws(CodecError) {
        let format = frame.format
        guard format.pixelFormat == .i420, format.width == settings.width, format.height == settings.height else {
            throw .unsupportedFormat(expected: settings.frameFormat, actual: format)
        }
        let pts = nextPTS(for: frame.timestamp)
        let duration = UInt(Self.clockRate) / UInt(settings.framesPerSecond)
        var flags: vpx_enc_frame_flags_t = (forceKeyframe || keyframeRequested) ? TOKKIT_VPX_EFLAG_FORCE_KF : 0
        var layer: VP8TemporalPattern.Frame?
        if pattern.layers > 1 {
            // A keyframe restarts the pattern; a periodic one comes at the first TL0 position at least
            // `keyframeMaxInterval` frames after the last keyframe (at most `periodicity - 1` frames late).
            if flags == 0 && patternIndex == 0 && framesSinceKeyframe + 1 >= settings.keyframeMaxInterval {
                flags = TOKKIT_VPX_EFLAG_FORCE_KF
            }
            if flags != 0 { patternIndex = 0 }
            let frame = pattern.frames[patternIndex]
            if flags == 0 { flags = frame.flags }
            // Called directly: `control` builds its operation name eagerly (a string per frame).
            let status = tokkit_vpx_control_int(context, Int32(VP8E_SET_TEMPORAL_LAYER_ID.rawValue), Int32(frame.layer))
            if status != VPX_CODEC_OK { try Self.check("VP8E_SET_TEMPORAL_LAYER_ID", status, context) }
            patternIndex = (patternIndex + 1) % pattern.periodicity
            layer = frame
        }
        if flags & TOKKIT_VPX_EFLAG_FORCE_KF != 0 && hasEncoded && pattern.layers == 1 {
            try limitRateBuffer(to: Self.keyframeBufferLevel)
        }
        try frame.withPlanes(ifExpired: CodecError.expiredFrame) { (planes) throws(CodecError) in
            let img = image
            let y = UnsafeMutablePointer(mutating: planes[0].baseAddress!.assumingMemoryBound(to: UInt8.self))
            vpx_img_wrap(img, VPX_IMG_FMT_I420, UInt32(format.width), UInt32(format.height), 1, y)
            img.pointee.planes.1 = UnsafeMutablePointer(mutating: planes[1].baseAddress!.assumingMemoryBound(to: UInt8.self))
            img.pointee.planes.2 = UnsafeMutablePointer(mutating: planes[2].baseAddress!.assumingMemoryBound(to: UInt8.self))
            img.pointee.stride.0 = Int32(format.bytesPerRow[0])
            img.pointee.stride.1 = Int32(format.bytesPerRow[1])
            img.pointee.stride.2 = Int32(format.bytesPerRow[2])
            try Self.check(
                "vpx_codec_encode", vpx_codec_encode(context, img, pts, duration, flags, TOKKIT_VPX_DL_REALTIME), context)
        }
        keyframeRequested = false
        hasEncoded = true
        var quantizer: Int32 = -1
        if tokkit_vpx_control_get_int(context, Int32(VP8E_GET_LAST_QUANTIZER_64.rawValue), &quantizer) != VPX_CODEC_OK {
            quantizer = -1
        }
        var iterator: vpx_codec_iter_t?
        while let packet = vpx_codec_get_cx_data(context, &iterator) {
            guard packet.pointee.kind == VPX_CODEC_CX_FRAME_PKT else { continue }
            let data = packet.pointee.data.frame
            let isKeyframe = data.flags & TOKKIT_VPX_FRAME_IS_KEY != 0
            framesSinceKeyframe = isKeyframe ? 0 : framesSinceKeyframe + 1
            body(EncodedVideoFrame(
                bytes: UnsafeRawBufferPointer(start: data.buf, count: data.sz), isKeyframe: isKeyframe,
                width: settings.width, height: settings.height, timestamp: frame.timestamp,
                temporalLayer: layer.map { isKeyframe ? 0 : $0.layer }, layerSync: !isKeyframe && layer?.layerSync == true,
                quantizer: quantizer >= 0 ? Int(quantizer) : nil))
        }
    }

    /// Makes the next ``encode(_:forceKeyframe:_:)`` produce a keyframe (on a PLI or FIR from a receiver).
    public func requestKeyframe() {
        keyframeRequested = true
    }

    /// Changes the target bitrate (bits/s) from the next frame on, e.g. after a REMB or a congestion estimate. A
    /// decrease also clips libvpx's rate buffer (``cutBufferLevel``; a fall to under half, ``collapseBufferLevel``).
    ///
    /// - Throws: ``CodecError/invalidSettings(_:)`` outside 1000...100000000, ``CodecError/libvpx(operation:status:detail:)``
    ///   if libvpx rejects it (the previous rate stays).
    public func setBitrate(_ bitsPerSecond: Int) throws(CodecError) {
        var updated = settings
        updated.bitrate = bitsPerSecond
        try updated.validate()
        let previous = (config.pointee.rc_target_bitrate, config.pointee.ts_target_bitrate)
        Self.setTargetBitrate(config, bitsPerSecond, pattern)
        do throws(CodecError) {
            if bitsPerSecond < settings.bitrate {
                let collapse = hasEncoded && bitsPerSecond * 2 < settings.bitrate
                try limitRateBuffer(to: collapse ? Self.collapseBufferLevel : Self.cutBufferLevel)
            } else {
                try Self.check("vpx_codec_enc_config_set", vpx_codec_enc_config_set(context, config), context)
            }
        } catch {
            (config.pointee.rc_target_bitrate, config.pointee.ts_target_bitrate) = previous
            throw error
        }
        settings = updated
    }

    // MARK: - Rate buffer

    /// The most of libvpx's rate buffer (ms at the target rate) left before a forced keyframe (not the stream's
    /// first frame; one layer only, see ``limitRateBuffer(to:)``).
    ///
    /// libvpx's key frame size model is barely trained mid-stream: a key frame asked for comes out far under its
    /// target, leaving the rate buffer full, and libvpx then caps the next frame's quantizer at its long-run
    /// inter average. That frame restores all the detail the key frame lacked: on the camera-like test sequence at
    /// 1 Mb/s a 2.8 kB key frame was followed by a 56 kB delta frame (q9), half a second of the target in one
    /// frame; after a cut to 261 kb/s, 1.9 kB then 37 kB. Behind a bottleneck that frame is lost and asked for
    /// again. Clipped to 300 ms first, the frame after the key frame was 9.5 kB and 2.5 kB (libvpx 1.12, VP8
    /// `calc_pframe_target_size` and `vp8_regulate_q`). The cost: for about a second after the key frame the
    /// encoder sends ~10 % under its target.
    static let keyframeBufferLevel: UInt32 = 300
    /// The most of the rate buffer left when the bitrate goes down by up to half (ms at the new rate; further:
    /// ``collapseBufferLevel``): libvpx keeps the bits it saved at the higher rate up to the buffer's size (1 s), and
    /// spends them at the old quantizer before the cut shows (443 kb/s for a second after a cut to 261 kb/s; with the
    /// buffer at 600 ms, 327 kb/s). On every decrease, small ones too, though the case for that over a 15 % threshold
    /// rests on few runs: in network-bench's bottleneck row, clipping on every decrease gave 1-2 freezes after settling
    /// (0.7-1.7 s, four runs), on cuts of over 15 % only 1-4 (0.8-2.0 s, eight runs, 2-4 in most); and on the textured
    /// test sequence an estimate falling 5 % at a time on its own encodes the same either way (262 against 264 kb/s
    /// after a fall to 261). The cost: under an estimate that keeps moving, the buffer rarely holds more than its
    /// optimal level, so the encoder has less in hand for a sudden change of picture.
    static let cutBufferLevel: UInt32 = 600
    /// The most of the rate buffer left when the bitrate falls to less than half (ms at the new rate), once the
    /// encoder has encoded. Made for a path that stopped carrying what we sent (a bottleneck's onset, a handover): its
    /// queue is full, and the estimate that shows it comes a round trip behind a queue as full in the other direction
    /// (network-bench's bottleneck row: 200-300 ms after the first loss). Below its optimal level (600 ms) libvpx
    /// spends under the target until the buffer refills, and the queue drains: on the textured test sequence, after a
    /// fall from 1 Mb/s to 300 kb/s, 119 kb/s in the first 300 ms, 147 kb/s in the next, 257 kb/s in the 400 ms after
    /// that (at 600 ms: 309, 292, 308). Any fall that steep does it: an app's lower bitrate, a peer's REMB, a
    /// simulcast layer's share. In network-bench's bottleneck row the video sent in the 300 ms after the first cut
    /// fell from 250-370 kb/s to 160-230 (traced runs); freezes after settling, in 4 runs of 26 against 3 of 19
    /// before, are within the row's noise. An encoder made for a new size starts at libvpx's usual 500 ms, so where
    /// the size changes with the key frame after the cut, the drain ends there; starting such an encoder at this
    /// level too froze after settling in 2 runs of 8, no better, and is not done.
    static let collapseBufferLevel: UInt32 = 100

    /// Applies ``config`` with libvpx's rate buffer shrunk to `milliseconds` (which drops the bits it holds above
    /// that), then restores the buffer's size; the bits stay dropped (`vp8_change_config` only clips them). Not with
    /// temporal layers: each layer keeps its own buffer level, which libvpx restores before each frame, so only the
    /// configuration is applied.
    private func limitRateBuffer(to milliseconds: UInt32) throws(CodecError) {
        guard pattern.layers == 1 else {
            try Self.check("vpx_codec_enc_config_set", vpx_codec_enc_config_set(context, config), context)
            return
        }
        let size = config.pointee.rc_buf_sz
        config.pointee.rc_buf_sz = min(size, milliseconds)
        let shrunk = vpx_codec_enc_config_set(context, config)
        config.pointee.rc_buf_sz = size
        try Self.check("vpx_codec_enc_config_set", shrunk, context)
        try Self.check("vpx_codec_enc_config_set", vpx_codec_enc_config_set(context, config), context)
    }

    // MARK: - Configuration

    /// WebRTC's real-time VP8 configuration (libvpx_vp8_encoder.cc), applied to libvpx's defaults.
    private static func configure(_ c: UnsafeMutablePointer<vpx_codec_enc_cfg_t>, _ s: VP8EncoderSettings) {
        c.pointee.g_w = UInt32(s.width)
        c.pointee.g_h = UInt32(s.height)
        c.pointee.g_threads = UInt32(s.threads)
        c.pointee.g_timebase = vpx_rational(num: 1, den: Int32(clockRate))
        c.pointee.g_lag_in_frames = 0
        c.pointee.g_pass = VPX_RC_ONE_PASS
        c.pointee.g_error_resilient = s.errorResilient ? vpx_codec_er_flags_t(VPX_ERROR_RESILIENT_DEFAULT) : 0
        c.pointee.rc_end_usage = VPX_CBR
        c.pointee.rc_target_bitrate = UInt32(max(1, s.bitrate / 1000))
        c.pointee.rc_resize_allowed = 0
        c.pointee.rc_dropframe_thresh = s.isScreenContent ? 30 : 0
        c.pointee.rc_min_quantizer = s.isScreenContent ? 12 : 2
        c.pointee.rc_max_quantizer = UInt32(maximumQuantizer)
        c.pointee.rc_undershoot_pct = 100
        c.pointee.rc_overshoot_pct = 15
        c.pointee.rc_buf_initial_sz = 500
        c.pointee.rc_buf_optimal_sz = 600
        c.pointee.rc_buf_sz = 1000
        c.pointee.kf_mode = VPX_KF_AUTO
        c.pointee.kf_min_dist = 0
        c.pointee.kf_max_dist = UInt32(s.keyframeMaxInterval)
        let pattern = VP8TemporalPattern(layers: s.temporalLayers)
        guard pattern.layers > 1 else { return }
        // Temporal layers (libvpx's ts_* fields, as Chromium's libvpx VP8 encoder sets them): the pattern's layer
        // ids, each layer's rate decimator and cumulative bitrate; the layer id and reference flags are also given
        // per frame. Keyframes are forced by `encode` at a TL0 position, so libvpx places none of its own.
        c.pointee.kf_mode = VPX_KF_DISABLED
        c.pointee.ts_number_layers = UInt32(pattern.layers)
        c.pointee.ts_periodicity = UInt32(pattern.periodicity)
        withUnsafeMutableBytes(of: &c.pointee.ts_layer_id) { raw in
            let ids = raw.bindMemory(to: UInt32.self)
            for (k, frame) in pattern.frames.enumerated() { ids[k] = UInt32(frame.layer) }
        }
        withUnsafeMutableBytes(of: &c.pointee.ts_rate_decimator) { raw in
            let decimators = raw.bindMemory(to: UInt32.self)
            for k in 0..<pattern.layers { decimators[k] = UInt32(pattern.rateDecimator(layer: k)) }
        }
        setTargetBitrate(c, s.bitrate, pattern)
    }

    /// The total bitrate (kbit/s in libvpx) and, with temporal layers, each layer's cumulative share of it.
    private static func setTargetBitrate(
        _ c: UnsafeMutablePointer<vpx_codec_enc_cfg_t>, _ bitsPerSecond: Int, _ pattern: VP8TemporalPattern
    ) {
        let kbps = max(1, bitsPerSecond / 1000)
        c.pointee.rc_target_bitrate = UInt32(kbps)
        guard pattern.layers > 1 else { return }
        withUnsafeMutableBytes(of: &c.pointee.ts_target_bitrate) { raw in
            let targets = raw.bindMemory(to: UInt32.self)
            var cumulative = 0.0
            for (k, share) in pattern.bitrateShares.enumerated() {
                cumulative += share
                targets[k] = k == pattern.layers - 1 ? UInt32(kbps) : max(1, UInt32(Double(kbps) * cumulative))
            }
        }
    }

    private func applyControls() throws(CodecError) {
        let s = settings
        try control(VP8E_SET_CPUUSED, int: s.cpuUsed)
        try control(VP8E_SET_STATIC_THRESHOLD, uint: 1)
        try control(VP8E_SET_NOISE_SENSITIVITY, uint: 0)
        try control(VP8E_SET_TOKEN_PARTITIONS, int: Int(VP8_ONE_TOKENPARTITION.rawValue))
        // WebRTC's MaxIntraTarget: half the optimal buffer, scaled by frame rate, at least 3x a frame's budget.
        try control(VP8E_SET_MAX_INTRA_BITRATE_PCT, uint: max(300, 600 / 2 * s.framesPerSecond / 10))
        try control(VP8E_SET_SCREEN_CONTENT_MODE, uint: s.contentHint == .text ? 2 : s.isScreenContent ? 1 : 0)
    }

    private func control(_ id: vp8e_enc_control_id, int value: Int) throws(CodecError) {
        try Self.check("vpx_codec_control(\(id.rawValue))", tokkit_vpx_control_int(context, Int32(id.rawValue), Int32(value)), context)
    }

    private func control(_ id: vp8e_enc_control_id, uint value: Int) throws(CodecError) {
        try Self.check(
            "vpx_codec_control(\(id.rawValue))", tokkit_vpx_control_uint(context, Int32(id.rawValue), UInt32(value)), context)
    }

    /// 90 kHz ticks since the first frame, strictly increasing even if timestamps stall or go back.
    private func nextPTS(for timestamp: Duration) -> vpx_codec_pts_t {
        let first = firstTimestamp ?? timestamp
        firstTimestamp = first
        let (seconds, attoseconds) = (timestamp - first).components
        let ticks = seconds * Self.clockRate + attoseconds / (1_000_000_000_000_000_000 / Self.clockRate)
        lastPTS = max(ticks, lastPTS + 1)
        return lastPTS
    }

    static func check(
        _ operation: String, _ code: vpx_codec_err_t, _ context: UnsafeMutablePointer<vpx_codec_ctx_t>?
    ) throws(CodecError) {
        guard code != VPX_CODEC_OK else { return }
        let detail = context.flatMap { vpx_codec_error_detail($0) }.map { String(cString: $0) } ?? ""
        throw .libvpx(operation: operation, status: VPXStatus(code), detail: detail)
    }

    private static func free(
        _ context: UnsafeMutablePointer<vpx_codec_ctx_t>, _ config: UnsafeMutablePointer<vpx_codec_enc_cfg_t>,
        _ image: UnsafeMutablePointer<vpx_image_t>
    ) {
        context.deallocate()
        config.deallocate()
        image.deallocate()
    }
}
