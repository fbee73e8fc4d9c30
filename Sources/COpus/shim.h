// libopus. Wraps the variadic opus_encoder_ctl / opus_decoder_ctl as typed static inline functions.
#ifndef TOKKIT_COPUS_SHIM_H
#define TOKKIT_COPUS_SHIM_H

#include <opus.h>

/// opus_encoder_ctl for the OPUS_SET_* requests that take one opus_int32.
static inline int tokkit_opus_encoder_set(OpusEncoder *enc, int request, opus_int32 value) {
    return opus_encoder_ctl(enc, request, value);
}

/// opus_encoder_ctl for the OPUS_GET_* requests that write one opus_int32.
static inline int tokkit_opus_encoder_get(OpusEncoder *enc, int request, opus_int32 *value) {
    return opus_encoder_ctl(enc, request, value);
}

/// opus_decoder_ctl for the OPUS_GET_* requests that write one opus_int32.
static inline int tokkit_opus_decoder_get(OpusDecoder *dec, int request, opus_int32 *value) {
    return opus_decoder_ctl(dec, request, value);
}

/// OPUS_RESET_STATE on a decoder.
static inline int tokkit_opus_decoder_reset(OpusDecoder *dec) {
    return opus_decoder_ctl(dec, OPUS_RESET_STATE);
}

#endif
