// libyuv has no pkg-config file; its umbrella header imports cleanly (C++ parts sit behind __cplusplus).
#include <libyuv.h>
