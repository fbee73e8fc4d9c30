// libvpx (VP8 only). Wraps what Swift cannot call: the init macros that pass the ABI version, the variadic
// vpx_codec_control_, and a few flag macros, as typed static inline functions.
#ifndef TOKKIT_CVPX_SHIM_H
#define TOKKIT_CVPX_SHIM_H

#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>

static inline vpx_codec_err_t tokkit_vpx_vp8_enc_init(vpx_codec_ctx_t *ctx, const vpx_codec_enc_cfg_t *cfg) {
    return vpx_codec_enc_init(ctx, vpx_codec_vp8_cx(), cfg, 0);
}

static inline vpx_codec_err_t tokkit_vpx_vp8_enc_config_default(vpx_codec_enc_cfg_t *cfg) {
    return vpx_codec_enc_config_default(vpx_codec_vp8_cx(), cfg, 0);
}

static inline vpx_codec_err_t tokkit_vpx_vp8_dec_init(vpx_codec_ctx_t *ctx, unsigned int threads) {
    vpx_codec_dec_cfg_t cfg = { .threads = threads, .w = 0, .h = 0 };
    return vpx_codec_dec_init(ctx, vpx_codec_vp8_dx(), &cfg, 0);
}

/// vpx_codec_control_ for controls whose argument is an int.
static inline vpx_codec_err_t tokkit_vpx_control_int(vpx_codec_ctx_t *ctx, int id, int value) {
    return vpx_codec_control_(ctx, id, value);
}

/// vpx_codec_control_ for controls whose argument is an unsigned int.
static inline vpx_codec_err_t tokkit_vpx_control_uint(vpx_codec_ctx_t *ctx, int id, unsigned int value) {
    return vpx_codec_control_(ctx, id, value);
}

/// vpx_codec_control_ for controls that write an int (e.g. VP8D_GET_FRAME_CORRUPTED).
static inline vpx_codec_err_t tokkit_vpx_control_get_int(vpx_codec_ctx_t *ctx, int id, int *value) {
    return vpx_codec_control_(ctx, id, value);
}

static const vpx_enc_frame_flags_t TOKKIT_VPX_EFLAG_FORCE_KF = VPX_EFLAG_FORCE_KF;
static const vpx_codec_frame_flags_t TOKKIT_VPX_FRAME_IS_KEY = VPX_FRAME_IS_KEY;
static const unsigned long TOKKIT_VPX_DL_REALTIME = VPX_DL_REALTIME;
// Per-frame reference and update flags for temporal layers (vp8cx.h macros).
static const vpx_enc_frame_flags_t TOKKIT_VP8_EFLAG_NO_REF_LAST = VP8_EFLAG_NO_REF_LAST;
static const vpx_enc_frame_flags_t TOKKIT_VP8_EFLAG_NO_REF_GF = VP8_EFLAG_NO_REF_GF;
static const vpx_enc_frame_flags_t TOKKIT_VP8_EFLAG_NO_REF_ARF = VP8_EFLAG_NO_REF_ARF;
static const vpx_enc_frame_flags_t TOKKIT_VP8_EFLAG_NO_UPD_LAST = VP8_EFLAG_NO_UPD_LAST;
static const vpx_enc_frame_flags_t TOKKIT_VP8_EFLAG_NO_UPD_GF = VP8_EFLAG_NO_UPD_GF;
static const vpx_enc_frame_flags_t TOKKIT_VP8_EFLAG_NO_UPD_ARF = VP8_EFLAG_NO_UPD_ARF;
static const vpx_enc_frame_flags_t TOKKIT_VP8_EFLAG_NO_UPD_ENTROPY = VP8_EFLAG_NO_UPD_ENTROPY;

#endif
