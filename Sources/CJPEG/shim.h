// libjpeg(-turbo). jpeglib.h needs size_t and FILE declared first; jpeg_create_compress is a macro.
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>

/// `jpeg_create_compress` (a macro passing the library version and struct size).
static inline void tk_jpeg_create_compress(j_compress_ptr cinfo) { jpeg_create_compress(cinfo); }
