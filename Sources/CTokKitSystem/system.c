#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include "CTokKitSystem.h"

int tk_thread_set_name(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}

int tk_malloc_trim(void) {
    return malloc_trim(0);
}
