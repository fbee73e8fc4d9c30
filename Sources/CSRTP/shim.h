// libsrtp2. Everything TokKitSRTP uses is a plain function or enum; nothing needs wrapping.
#include <srtp2/srtp.h>
