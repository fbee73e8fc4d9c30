// TokKitCodecs benchmark: VP8Encoder/VP8Decoder/OpusEncoder/OpusDecoder against raw libvpx/libopus calls with the
// same configuration on the same input, in one run.
//
// Rounds alternate between the two paths (each keeps its own codec state across rounds); the figure is the median
// over rounds of the thread's CPU time per frame, so a loaded machine inflates it less than wall time. Heap
// allocations per frame are counted by interposing malloc over both paths; what matters is what TokKit adds.
// The raw decode path leaves the picture in libvpx's buffer; VP8Decoder also copies it into a pooled frame (the
// price of handing it to a renderer on another thread), which is most of the difference.
// Figures are for comparisons, never for assertions.
//
// Usage: swift run -c release codecs-bench [--frames N] [--rounds R]
import CMallocCounter
import COpus
import CVPX
import Foundation
import TokKitCodecs
import TokKitMedia

let arguments = CommandLine.arguments
func option(_ name: String, _ fallback: Int) -> Int {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count, let v = Int(arguments[i + 1]) else { return fallback }
    return v
}
let framesPerRound = option("--frames", 60)
let rounds = option("--rounds", 7)

func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }

/// Nanoseconds of CPU time this thread has used.
func threadCPUTime() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) * 1e9 + Double(ts.tv_nsec)
}

/// Runs `raw` and `tokkit` (each doing `frames` frames per call) in alternating rounds after one warm-up round;
/// prints median ms per frame, the ratio, and allocations per frame added by TokKit.
func compare(_ name: String, frames: Int, raw: () -> Void, tokkit: () -> Void) {
    raw()
    tokkit()
    var rawTimes: [Double] = [], tokkitTimes: [Double] = []
    var rawAllocations: UInt64 = 0, tokkitAllocations: UInt64 = 0
    for _ in 0..<rounds {
        var before = tk_malloc_count()
        var start = threadCPUTime()
        raw()
        rawTimes.append((threadCPUTime() - start) / Double(frames))
        rawAllocations += tk_malloc_count() - before
        before = tk_malloc_count()
        start = threadCPUTime()
        tokkit()
        tokkitTimes.append((threadCPUTime() - start) / Double(frames))
        tokkitAllocations += tk_malloc_count() - before
    }
    let r = median(rawTimes), t = median(tokkitTimes)
    let total = Double(rounds * frames)
    let added = (Double(tokkitAllocations) - Double(rawAllocations)) / total
    print(String(format: "%@ %8.3f ms  %8.3f ms   %.3f×   %6.2f        %6.2f",
                 name.padding(toLength: 34, withPad: " ", startingAt: 0), r / 1e6, t / 1e6, r / t,
                 Double(rawAllocations) / total, added))
}

// MARK: - Input

/// Deterministic noise in 16...235 (an integer hash of the position).
func texture(_ x: Int, _ y: Int) -> UInt8 {
    var h = UInt32(truncatingIfNeeded: x &* 374_761_393 &+ y &* 668_265_263)
    h = (h ^ (h >> 13)) &* 1_274_126_177
    return UInt8(16 + (h ^ (h >> 16)) % 220)
}

/// Colour bars with a moving white block over a bottom quarter of scrolling noise (as in the tests), I420, `count`
/// distinct frames.
func pattern(width: Int, height: Int, count: Int) throws -> [VideoFrame] {
    let pool = VideoFramePool(capacity: count)
    let bars: [(UInt8, UInt8, UInt8)] = [(180, 128, 128), (162, 44, 142), (131, 156, 44), (112, 72, 58),
                                         (84, 184, 198), (65, 100, 212), (35, 212, 114), (16, 128, 128)]
    return try (0..<count).map { index in
        let frame = try pool.makeFrame(format: .i420(width: width, height: height))
        let block = height / 6, bx = (index * 8) % (width - block), by = (index * 4) % (height - block)
        frame.withMutablePlanes { p in
            for plane in 0..<3 {
                let shift = plane == 0 ? 0 : 1, stride = frame.format.bytesPerRow[plane]
                for row in 0..<frame.format.rows(inPlane: plane) {
                    for col in 0..<(plane == 0 ? width : (width + 1) / 2) {
                        let (x, y) = (col << shift, row << shift)
                        var c = bars[min(7, x * 8 / width)]
                        if x >= bx, x < bx + block, y >= by, y < by + block { c = (235, 128, 128) }
                        if plane == 0, y >= height * 3 / 4 { c.0 = texture(x + 4 * index, y) }
                        p[plane][row * stride + col] = plane == 0 ? c.0 : plane == 1 ? c.1 : c.2
                    }
                }
            }
        }
        return frame
    }
}

// MARK: - Raw libvpx, configured as VP8Encoder does

final class RawVP8Encoder {
    var ctx = vpx_codec_ctx_t()
    var cfg = vpx_codec_enc_cfg_t()
    var img = vpx_image_t()
    var pts: vpx_codec_pts_t = 0

    init(width: Int, height: Int, bitrate: Int) {
        precondition(tokkit_vpx_vp8_enc_config_default(&cfg) == VPX_CODEC_OK)
        cfg.g_w = UInt32(width); cfg.g_h = UInt32(height); cfg.g_threads = 1
        cfg.g_timebase = vpx_rational(num: 1, den: 90_000)
        cfg.g_lag_in_frames = 0; cfg.g_pass = VPX_RC_ONE_PASS; cfg.g_error_resilient = 1
        cfg.rc_end_usage = VPX_CBR; cfg.rc_target_bitrate = UInt32(bitrate / 1000); cfg.rc_resize_allowed = 0
        cfg.rc_dropframe_thresh = 0; cfg.rc_min_quantizer = 2; cfg.rc_max_quantizer = 56
        cfg.rc_undershoot_pct = 100; cfg.rc_overshoot_pct = 15
        cfg.rc_buf_initial_sz = 500; cfg.rc_buf_optimal_sz = 600; cfg.rc_buf_sz = 1000
        cfg.kf_mode = VPX_KF_AUTO; cfg.kf_min_dist = 0; cfg.kf_max_dist = 3000
        precondition(tokkit_vpx_vp8_enc_init(&ctx, &cfg) == VPX_CODEC_OK)
        _ = tokkit_vpx_control_int(&ctx, Int32(VP8E_SET_CPUUSED.rawValue), -6)
        _ = tokkit_vpx_control_uint(&ctx, Int32(VP8E_SET_STATIC_THRESHOLD.rawValue), 1)
        _ = tokkit_vpx_control_uint(&ctx, Int32(VP8E_SET_NOISE_SENSITIVITY.rawValue), 0)
        _ = tokkit_vpx_control_int(&ctx, Int32(VP8E_SET_TOKEN_PARTITIONS.rawValue), 0)
        _ = tokkit_vpx_control_uint(&ctx, Int32(VP8E_SET_MAX_INTRA_BITRATE_PCT.rawValue), 900)
        _ = tokkit_vpx_control_uint(&ctx, Int32(VP8E_SET_SCREEN_CONTENT_MODE.rawValue), 0)
    }

    deinit { vpx_codec_destroy(&ctx) }

    /// Encodes contiguous I420 `data` and returns the compressed size.
    func encode(_ data: UnsafeMutablePointer<UInt8>, width: Int, height: Int) -> Int {
        vpx_img_wrap(&img, VPX_IMG_FMT_I420, UInt32(width), UInt32(height), 1, data)
        precondition(vpx_codec_encode(&ctx, &img, pts, 3000, 0, TOKKIT_VPX_DL_REALTIME) == VPX_CODEC_OK)
        pts += 3000
        var iterator: vpx_codec_iter_t?
        var size = 0
        while let packet = vpx_codec_get_cx_data(&ctx, &iterator) {
            if packet.pointee.kind == VPX_CODEC_CX_FRAME_PKT { size += packet.pointee.data.frame.sz }
        }
        return size
    }
}

/// The frame's planes copied into one contiguous buffer (what the raw path wraps).
func contiguous(_ frame: VideoFrame) throws -> UnsafeMutablePointer<UInt8> {
    let size = frame.format.minimumFrameSize
    let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
    var offset = 0
    try frame.withPlanes { planes in
        for i in 0..<3 {
            let n = frame.format.minimumSize(ofPlane: i)
            UnsafeMutableRawPointer(buffer + offset).copyMemory(from: planes[i].baseAddress!, byteCount: n)
            offset += n
        }
    }
    return buffer
}

func benchVP8(width: Int, height: Int, bitrate: Int) throws {
    let frames = try pattern(width: width, height: height, count: 30)
    let rawInputs = try frames.map(contiguous)
    defer { rawInputs.forEach { $0.deallocate() } }
    let label = "\(width)x\(height) @\(bitrate / 1000) kbps"

    // Encode.
    let raw = RawVP8Encoder(width: width, height: height, bitrate: bitrate)
    let encoder = try VP8Encoder(settings: VP8EncoderSettings(width: width, height: height, bitrate: bitrate))
    var rawIndex = 0, index = 0, rawBytes = 0, bytes = 0
    var stream: [[UInt8]] = []
    compare("VP8 encode \(label)", frames: framesPerRound, raw: {
        for _ in 0..<framesPerRound {
            rawBytes += raw.encode(rawInputs[rawIndex % 30], width: width, height: height)
            rawIndex += 1
        }
    }, tokkit: {
        for _ in 0..<framesPerRound {
            var frame = frames[index % 30]
            frame.timestamp = .microseconds(33_333 * index)
            try! encoder.encode(frame) { encoded in
                bytes += encoded.bytes.count
                if stream.count < framesPerRound { stream.append(Array(encoded.bytes)) }
            }
            index += 1
        }
    })

    // Decode the first `framesPerRound` frames (keyframe first, so every round restarts the stream) with one
    // long-lived decoder per path.
    var rawDecoder = vpx_codec_ctx_t()
    precondition(tokkit_vpx_vp8_dec_init(&rawDecoder, 1) == VPX_CODEC_OK)
    defer { vpx_codec_destroy(&rawDecoder) }
    let decoder = try VP8Decoder(poolCapacity: 2)
    compare("VP8 decode \(label)", frames: stream.count, raw: {
        for packet in stream {
            packet.withUnsafeBytes { p in
                precondition(vpx_codec_decode(&rawDecoder, p.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt32(p.count), nil, 0) == VPX_CODEC_OK)
            }
            var iterator: vpx_codec_iter_t?
            while vpx_codec_get_frame(&rawDecoder, &iterator) != nil {}
        }
    }, tokkit: {
        for packet in stream { _ = try! packet.withUnsafeBytes { try decoder.decode($0, timestamp: .zero) } }
    })
    let seconds = Double(index) / 30
    print(String(format: "    output: raw %.0f kbps, TokKit %.0f kbps (target %d)",
                 Double(rawBytes) * 8 / (Double(rawIndex) / 30) / 1000, Double(bytes) * 8 / seconds / 1000, bitrate / 1000))
}

// MARK: - Opus

func benchOpus() throws {
    let frameCount = 50
    let pcm = (0..<(960 * frameCount)).map { Int16(8000 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
    let settings = OpusEncoderSettings()
    let encoder = try OpusEncoder(settings: settings)
    var status: Int32 = 0
    let raw = opus_encoder_create(48_000, 1, OPUS_APPLICATION_VOIP, &status)!
    defer { opus_encoder_destroy(raw) }
    for (request, value) in [(OPUS_SET_BITRATE_REQUEST, 32_000), (OPUS_SET_INBAND_FEC_REQUEST, 1),
                             (OPUS_SET_PACKET_LOSS_PERC_REQUEST, 5), (OPUS_SET_DTX_REQUEST, 0),
                             (OPUS_SET_COMPLEXITY_REQUEST, 9), (OPUS_SET_SIGNAL_REQUEST, OPUS_AUTO)] {
        precondition(tokkit_opus_encoder_set(raw, request, value) == OPUS_OK)
    }
    var out = [UInt8](repeating: 0, count: OpusEncoder.maximumPacketSize)
    var packets: [[UInt8]] = []
    pcm.withUnsafeBufferPointer { pcm in
        out.withUnsafeMutableBytes { out in
            compare("Opus encode 48k mono 20 ms 32 kbps", frames: frameCount, raw: {
                for f in 0..<frameCount {
                    precondition(opus_encode(raw, pcm.baseAddress! + f * 960, 960, out.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(out.count)) > 0)
                }
            }, tokkit: {
                for f in 0..<frameCount {
                    let n = try! encoder.encode(UnsafeBufferPointer(rebasing: pcm[(f * 960)..<((f + 1) * 960)]), into: out)
                    if packets.count < frameCount { packets.append(Array(out[..<n])) }
                }
            })
        }
    }
    let decoder = try OpusDecoder()
    let rawDecoder = opus_decoder_create(48_000, 1, &status)!
    defer { opus_decoder_destroy(rawDecoder) }
    var decoded = [Int16](repeating: 0, count: OpusDecoder.maximumSamplesPerChannel)
    decoded.withUnsafeMutableBufferPointer { decoded in
        compare("Opus decode 48k mono 20 ms 32 kbps", frames: packets.count, raw: {
            for packet in packets {
                packet.withUnsafeBytes { p in
                    precondition(opus_decode(rawDecoder, p.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(p.count), decoded.baseAddress!, 5760, 0) == 960)
                }
            }
        }, tokkit: {
            for packet in packets { _ = packet.withUnsafeBytes { p in try! decoder.decode(p, into: decoded) } }
        })
    }
}

print("codecs-bench: median thread CPU time per frame over \(rounds) rounds of \(framesPerRound) frames (1 thread)")
print("case                                raw libvpx/opus     TokKit    raw/TokKit  raw allocs/frame  TokKit adds")
try benchVP8(width: 640, height: 480, bitrate: 1_000_000)
try benchVP8(width: 1280, height: 720, bitrate: 1_500_000)
try benchOpus()
