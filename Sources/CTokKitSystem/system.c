#define _GNU_SOURCE
#include <pthread.h>
#include "CTokKitSystem.h"

int tk_thread_set_name(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}
