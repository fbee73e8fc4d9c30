import CVPX
import CYUV
import TokKitMedia

/// A libvpx VP8 decoder that turns compressed frames into I420 ``VideoFrame``s: pooled copies, or pictures lent
/// without a copy.
///
/// Threading: not `Sendable`; decode on one thread (the subscriber's decode thread). The frames
/// ``decode(_:timestamp:)`` returns are in pooled memory it owns, so they may be queued and handed to another
/// thread's ``VideoRender``; a frame's buffer returns to the pool when the last copy of the frame is dropped.
/// ``decode(_:timestamp:lending:)`` skips that copy and lends libvpx's own picture for the length of a call.
///
/// A change of resolution in the stream (a keyframe of another size) simply yields frames of the new size.
/// Damaged input never traps: it throws ``CodecError/corruptFrame(_:)``, after which the caller requests a
/// keyframe; the decoder stays usable and recovers at the next keyframe.
public final class VP8Decoder {
    /// Where decoded frames live. Its capacity bounds how many decoded frames can be held downstream at once.
    public let pool: VideoFramePool

    private let context: UnsafeMutablePointer<vpx_codec_ctx_t>

    /// - Parameters:
    ///   - poolCapacity: decoded frames that may be alive at once (queued or being rendered), at least 1.
    ///   - threads: libvpx decoder threads.
    /// - Throws: ``CodecError/invalidSettings(_:)``, ``CodecError/libvpx(operation:status:detail:)``.
    public init(poolCapacity: Int = 4, threads: Int = 1) throws(CodecError) {
        guard poolCapacity >= 1 else { throw .invalidSettings("poolCapacity \(poolCapacity) (>= 1)") }
        guard (1...16).contains(threads) else { throw .invalidSettings("threads \(threads) (1...16)") }
        pool = VideoFramePool(capacity: poolCapacity)
        context = .allocate(capacity: 1)
        context.initialize(to: vpx_codec_ctx_t())
        do throws(CodecError) {
            try VP8Encoder.check("vpx_codec_dec_init", tokkit_vpx_vp8_dec_init(context, UInt32(threads)), context)
        } catch {
            context.deallocate()
            throw error
        }
    }

    deinit {
        vpx_codec_destroy(context)
        context.deallocate()
    }

    /// Decodes one complete VP8 frame (as reassembled from RTP) into a pooled I420 frame.
    ///
    /// - Parameter timestamp: stamped on the returned frame (normally the RTP timestamp mapped to local time).
    /// - Returns: the decoded picture, or `nil` when the frame produced none (a non-shown frame).
    /// - Throws: ``CodecError/corruptFrame(_:)`` for empty, damaged or undecodable data (request a keyframe);
    ///   ``CodecError/poolExhausted(capacity:)`` when every pooled frame is still held downstream (the picture
    ///   was decoded but dropped; no keyframe needed); ``CodecError/libvpx(operation:status:detail:)`` otherwise.
    public func decode(_ bytes: UnsafeRawBufferPointer, timestamp: Duration = MonotonicClock.now()) throws(CodecError) -> VideoFrame? {
        try withDecodedImage(bytes) { image throws(CodecError) in try copy(image, timestamp: timestamp) } ?? nil
    }

    /// Decodes one complete VP8 frame and lends the picture to `body` without copying it: the frame borrows the
    /// decoder's own buffer (rows padded, see its ``VideoFormat/bytesPerRow``) and is readable only inside `body`
    /// (afterwards every read fails with ``VideoFrameError/expired``); ``VideoFrame/copy(using:)`` keeps it. One picture copy cheaper than ``decode(_:timestamp:)``, for a caller
    /// that renders on the decode thread (a ``VideoRender`` may be handed a borrowed frame).
    ///
    /// - Returns: whether a picture was lent (`false` for a frame that shows none).
    /// - Throws: as ``decode(_:timestamp:)``, but never ``CodecError/poolExhausted(capacity:)``.
    @discardableResult
    public func decode(
        _ bytes: UnsafeRawBufferPointer, timestamp: Duration = MonotonicClock.now(), lending body: (VideoFrame) -> Void
    ) throws(CodecError) -> Bool {
        try withDecodedImage(bytes) { image throws(CodecError) in
            try lend(image, timestamp: timestamp, to: body)
        } != nil
    }

    /// Runs libvpx on `bytes` and `body` on the picture it shows, if any (`nil` when none), then releases it.
    private func withDecodedImage<R>(
        _ bytes: UnsafeRawBufferPointer, _ body: (UnsafeMutablePointer<vpx_image_t>) throws(CodecError) -> R
    ) throws(CodecError) -> R? {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { throw .corruptFrame("empty frame") }
        guard bytes.count <= Int(UInt32.max) else { throw .corruptFrame("frame of \(bytes.count) bytes") }
        let status = vpx_codec_decode(context, base.assumingMemoryBound(to: UInt8.self), UInt32(bytes.count), nil, 0)
        switch status {
        case VPX_CODEC_OK:
            break
        case VPX_CODEC_CORRUPT_FRAME, VPX_CODEC_UNSUP_BITSTREAM, VPX_CODEC_UNSUP_FEATURE, VPX_CODEC_INVALID_PARAM, VPX_CODEC_ERROR:
            throw .corruptFrame(Self.describe(status, context))
        default:
            try VP8Encoder.check("vpx_codec_decode", status, context)
        }
        var corrupted: Int32 = 0
        if tokkit_vpx_control_get_int(context, Int32(VP8D_GET_FRAME_CORRUPTED.rawValue), &corrupted) == VPX_CODEC_OK,
           corrupted != 0 {
            drainFrames()
            throw .corruptFrame("decoder flagged the frame as corrupted")
        }
        var iterator: vpx_codec_iter_t?
        guard let image = vpx_codec_get_frame(context, &iterator) else { return nil }
        defer { drainFrames(&iterator) }
        guard image.pointee.fmt == VPX_IMG_FMT_I420 else {
            throw .corruptFrame("decoder produced image format \(image.pointee.fmt.rawValue)")
        }
        return try body(image)
    }

    /// The format of the frames ``decode(_:timestamp:lending:)`` lends, kept while size and strides stay the same
    /// (building one per frame would allocate).
    private var lentFormat = VideoFormat.i420(width: 0, height: 0)

    /// Lends the frames of ``decode(_:timestamp:lending:)``; revoked before libvpx gets its picture back.
    private let lease = FrameLease()

    /// Lends `body` `image` as a borrowed I420 frame over libvpx's own planes, revoked when `body` returns.
    private func lend(
        _ image: UnsafeMutablePointer<vpx_image_t>, timestamp: Duration, to body: (VideoFrame) -> Void
    ) throws(CodecError) {
        let img = image.pointee
        let width = Int(img.d_w), height = Int(img.d_h)
        let strides = (Int(img.stride.0), Int(img.stride.1), Int(img.stride.2))
        let f = lentFormat
        if f.width != width || f.height != height || f.bytesPerRow[0] != strides.0 || f.bytesPerRow[1] != strides.1
            || f.bytesPerRow[2] != strides.2 {
            lentFormat = VideoFormat(pixelFormat: .i420, width: width, height: height,
                                     bytesPerRow: [strides.0, strides.1, strides.2])
        }
        let chromaRows = (height + 1) / 2
        do {
            try lease.lend(
                format: lentFormat, borrowing: UnsafeRawBufferPointer(start: img.planes.0, count: strides.0 * height),
                UnsafeRawBufferPointer(start: img.planes.1, count: strides.1 * chromaRows),
                UnsafeRawBufferPointer(start: img.planes.2, count: strides.2 * chromaRows), timestamp: timestamp
            ) { frame in body(frame) }
        } catch {
            throw .corruptFrame("decoded size \(width)x\(height): \(error)")
        }
    }

    private func copy(_ image: UnsafeMutablePointer<vpx_image_t>, timestamp: Duration) throws(CodecError) -> VideoFrame {
        let img = image.pointee
        let width = Int(img.d_w), height = Int(img.d_h)
        let frame: VideoFrame
        do {
            frame = try pool.makeFrame(format: .i420(width: width, height: height), timestamp: timestamp)
        } catch .poolExhausted(let capacity) {
            throw .poolExhausted(capacity: capacity)
        } catch {
            throw .corruptFrame("decoded size \(width)x\(height): \(error)")
        }
        let strides = frame.format.bytesPerRow
        frame.withMutablePlanes { dst in
            _ = I420Copy(
                img.planes.0, img.stride.0, img.planes.1, img.stride.1, img.planes.2, img.stride.2,
                dst[0].baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(strides[0]),
                dst[1].baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(strides[1]),
                dst[2].baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(strides[2]),
                Int32(width), Int32(height))
        }
        return frame
    }

    /// Releases any further pictures libvpx holds for the last call (VP8 yields at most one).
    private func drainFrames(_ iterator: inout vpx_codec_iter_t?) {
        while vpx_codec_get_frame(context, &iterator) != nil {}
    }

    private func drainFrames() {
        var iterator: vpx_codec_iter_t?
        drainFrames(&iterator)
    }

    private static func describe(_ status: vpx_codec_err_t, _ context: UnsafeMutablePointer<vpx_codec_ctx_t>) -> String {
        let detail = vpx_codec_error_detail(context).map { String(cString: $0) } ?? ""
        let text = VPXStatus(status).description
        return detail.isEmpty ? text : "\(text): \(detail)"
    }
}
