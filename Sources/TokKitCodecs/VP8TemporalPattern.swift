import CVPX

/// The temporal layering a ``VP8Encoder`` applies when ``VP8EncoderSettings/temporalLayers`` is above 1: which layer
/// each frame belongs to and which reference buffers it may read and refresh, repeated every ``periodicity`` frames.
///
/// Three layers (L1T3, what Chromium's libvpx VP8 encoder sends by default in simulcast, and libvpx's
/// `vpx_temporal_svc_encoder` "0-2-1-2" mode): the pattern 0, 2, 1, 2.
///
/// | frame | TID | reads | refreshes | Y (sync) |
/// |---|---|---|---|---|
/// | 0 | 0 | last | last | – |
/// | 1 | 2 | last | nothing | yes (reads only TL0) |
/// | 2 | 1 | last | golden | yes (reads only TL0) |
/// | 3 | 2 | last, golden | nothing | no (reads the TL1 frame) |
///
/// The alt-ref buffer (only a keyframe refreshes it) is never read or refreshed by a layer frame. Every frame of
/// layer 1 or 2 also leaves the entropy context alone, so dropping them (an SFU forwarding fewer layers) changes
/// nothing the lower layers decode with. Two layers: 0, 1 (TL1 reads last, refreshes nothing, syncs).
/// A keyframe restarts the pattern (it is the TL0 frame of position 0). Plain value, pure.
public struct VP8TemporalPattern: Hashable, Sendable {
    /// One position of the pattern.
    public struct Frame: Hashable, Sendable {
        /// The temporal layer (TID).
        public let layer: UInt8
        /// The frame reads only frames of layer 0 since the last layer-0 frame (the descriptor's Y bit).
        public let layerSync: Bool
        /// libvpx's `VP8_EFLAG_NO_REF_*` / `NO_UPD_*` flags for the frame.
        public let flags: vpx_enc_frame_flags_t
    }

    /// Number of temporal layers (1...3).
    public let layers: Int
    /// The positions of one period.
    public let frames: [Frame]

    /// The share of the total bitrate each layer adds, layer 0 first (Chromium's 3-layer split 40/20/40 %,
    /// 2-layer 60/40 %).
    public var bitrateShares: [Double] {
        switch layers {
        case 3: [0.4, 0.2, 0.4]
        case 2: [0.6, 0.4]
        default: [1]
        }
    }

    /// Frames of one period.
    public var periodicity: Int { frames.count }

    /// The layer's frame rate divided into the full rate (4, 2, 1 for three layers).
    public func rateDecimator(layer: Int) -> Int { periodicity / frames.count(where: { Int($0.layer) <= layer }) }

    /// The pattern for `layers` temporal layers (1, 2 or 3; anything else is clamped to that range).
    public init(layers: Int) {
        let noRefOthers = TOKKIT_VP8_EFLAG_NO_REF_GF | TOKKIT_VP8_EFLAG_NO_REF_ARF
        let noUpdate = TOKKIT_VP8_EFLAG_NO_UPD_LAST | TOKKIT_VP8_EFLAG_NO_UPD_GF | TOKKIT_VP8_EFLAG_NO_UPD_ARF
        let base = Frame(layer: 0, layerSync: false,
                         flags: noRefOthers | TOKKIT_VP8_EFLAG_NO_UPD_GF | TOKKIT_VP8_EFLAG_NO_UPD_ARF)
        switch layers {
        case ...1:
            self.layers = 1
            frames = [Frame(layer: 0, layerSync: false, flags: 0)]
        case 2:
            self.layers = 2
            frames = [base, Frame(layer: 1, layerSync: true,
                                  flags: noRefOthers | noUpdate | TOKKIT_VP8_EFLAG_NO_UPD_ENTROPY)]
        default:
            self.layers = 3
            frames = [
                base,
                Frame(layer: 2, layerSync: true, flags: noRefOthers | noUpdate | TOKKIT_VP8_EFLAG_NO_UPD_ENTROPY),
                Frame(layer: 1, layerSync: true,
                      flags: noRefOthers | TOKKIT_VP8_EFLAG_NO_UPD_LAST | TOKKIT_VP8_EFLAG_NO_UPD_ARF
                        | TOKKIT_VP8_EFLAG_NO_UPD_ENTROPY),
                Frame(layer: 2, layerSync: false,
                      flags: TOKKIT_VP8_EFLAG_NO_REF_ARF | noUpdate | TOKKIT_VP8_EFLAG_NO_UPD_ENTROPY),
            ]
        }
    }
}
