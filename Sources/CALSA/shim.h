// alsa-lib. Function-like macros (snd_pcm_hw_params_alloca, ...) are not callable from Swift: wrap them here.
#include <alsa/asoundlib.h>
