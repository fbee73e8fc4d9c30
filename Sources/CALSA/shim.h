// alsa-lib. Function-like macros (snd_pcm_hw_params_alloca, ...) are not callable from Swift: wrap them here.
#include <alsa/asoundlib.h>

// Parameter containers: Swift cannot call the *_alloca macros, so TokKit uses the heap variants
// (snd_pcm_hw_params_malloc / snd_pcm_sw_params_malloc, freed with *_free). These wrappers spell the pairs out
// so a caller never mixes them up.

/// Allocates a hardware-parameter container and fills it with the full configuration space of `pcm`.
/// Returns 0 or a negative errno; on success the caller frees `*params` with snd_pcm_hw_params_free.
static inline int tk_snd_pcm_hw_params_any_malloc(snd_pcm_t *pcm, snd_pcm_hw_params_t **params) {
    int err = snd_pcm_hw_params_malloc(params);
    if (err < 0) return err;
    err = snd_pcm_hw_params_any(pcm, *params);
    if (err < 0) { snd_pcm_hw_params_free(*params); *params = NULL; }
    return err;
}

/// Allocates a software-parameter container holding the current software parameters of `pcm`.
/// Returns 0 or a negative errno; on success the caller frees `*params` with snd_pcm_sw_params_free.
static inline int tk_snd_pcm_sw_params_current_malloc(snd_pcm_t *pcm, snd_pcm_sw_params_t **params) {
    int err = snd_pcm_sw_params_malloc(params);
    if (err < 0) return err;
    err = snd_pcm_sw_params_current(pcm, *params);
    if (err < 0) { snd_pcm_sw_params_free(*params); *params = NULL; }
    return err;
}
