// libavformat / libavcodec / libavutil (FFmpeg 5.1 on Debian 12), for muxing WebM without re-encoding. Wraps what
// Swift cannot call or import: the AVERROR() macro family, av_err2str (a compound-literal macro), AV_NOPTS_VALUE,
// and a few helpers that keep pointer juggling (extradata, channel layouts, option setting) on the C side.
#ifndef TOKKIT_CAVFORMAT_SHIM_H
#define TOKKIT_CAVFORMAT_SHIM_H

#include <errno.h>
#include <string.h>
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/mem.h>
#include <libavutil/opt.h>

/// AVERROR(e): a POSIX errno as a libav error code.
static inline int tokkit_averror(int posix_errno) { return AVERROR(posix_errno); }

static const int TOKKIT_AVERROR_EOF = AVERROR_EOF;
static const int TOKKIT_AVERROR_EINVAL = AVERROR(EINVAL);
static const int TOKKIT_AVERROR_ENOMEM = AVERROR(ENOMEM);
static const int64_t TOKKIT_AV_NOPTS_VALUE = AV_NOPTS_VALUE;
static const int TOKKIT_AV_PKT_FLAG_KEY = AV_PKT_FLAG_KEY;
static const int TOKKIT_AVIO_FLAG_WRITE = AVIO_FLAG_WRITE;
static const int TOKKIT_AVFMT_NOFILE = AVFMT_NOFILE;
static const int TOKKIT_AV_INPUT_BUFFER_PADDING_SIZE = AV_INPUT_BUFFER_PADDING_SIZE;

/// av_err2str without the compound literal: the text of `errnum` into `buffer` (always NUL-terminated).
static inline void tokkit_av_error_text(int errnum, char *buffer, size_t size) {
    if (size == 0) return;
    if (av_strerror(errnum, buffer, size) < 0) snprintf(buffer, size, "libav error %d", errnum);
    buffer[size - 1] = 0;
}

/// Copies `size` bytes into a fresh av_malloc'ed, zero-padded codecpar->extradata (freed by avformat_free_context).
static inline int tokkit_av_set_extradata(AVCodecParameters *par, const uint8_t *bytes, int size) {
    if (size < 0) return AVERROR(EINVAL);
    av_freep(&par->extradata);
    par->extradata_size = 0;
    par->extradata = av_mallocz((size_t)size + AV_INPUT_BUFFER_PADDING_SIZE);
    if (!par->extradata) return AVERROR(ENOMEM);
    if (size > 0) memcpy(par->extradata, bytes, (size_t)size);
    par->extradata_size = size;
    return 0;
}

/// The default channel layout (mono, stereo, ...) for `channels` channels.
static inline void tokkit_av_set_channels(AVCodecParameters *par, int channels) {
    av_channel_layout_uninit(&par->ch_layout);
    av_channel_layout_default(&par->ch_layout, channels);
}

/// Sets a muxer private option (e.g. matroska's cluster_time_limit) on an output context; returns 0 or an AVERROR.
static inline int tokkit_av_set_muxer_option(AVFormatContext *ctx, const char *name, const char *value) {
    if (!ctx->priv_data) return AVERROR(EINVAL);
    return av_opt_set(ctx->priv_data, name, value, 0);
}

/// Sets a generic AVFormatContext option (e.g. max_interleave_delta); returns 0 or an AVERROR.
static inline int tokkit_av_set_format_option_int(AVFormatContext *ctx, const char *name, int64_t value) {
    return av_opt_set_int(ctx, name, value, 0);
}

/// Points `pkt` at caller-owned bytes (not reference counted: libav copies them if it must keep them).
static inline void tokkit_av_packet_borrow(AVPacket *pkt, const uint8_t *bytes, int size) {
    pkt->buf = NULL;
    pkt->data = (uint8_t *)bytes;
    pkt->size = size;
}

#endif
