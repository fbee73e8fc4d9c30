import TokKitMedia
import TokKitPeer

/// The work of a ``VideoSendPipeline``'s encode thread for one frame: convert, scale and rotate to upright
/// I420 at the encode size, preview, encode once, packetize once, send to every connected peer.
///
/// Owned by the encode thread (not `Sendable`); everything it uses per frame is preallocated.
struct VideoEncodeStage {
    unowned let pipeline: VideoSendPipeline
    private let converter = VideoConverter(pool: VideoFramePool(capacity: 6))
    private var generation = -1
    private var meter = RateMeter()

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
        if control.newlyLive { pipeline.requestKeyframe() }
        if control.settingsGeneration != generation {
            generation = control.settingsGeneration
        }
        // VP8 encode + packetize + send: needs TokKitCodecs / TokKitRTP VP8 (merged next).
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
