#define _GNU_SOURCE
#include <stddef.h>
#include <errno.h>
#include <stdatomic.h>
#include "CMallocCounter.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static _Atomic uint64_t count;

uint64_t tk_malloc_count(void) { return atomic_load_explicit(&count, memory_order_relaxed); }

#define COUNT() atomic_fetch_add_explicit(&count, 1, memory_order_relaxed)

void *malloc(size_t n) { COUNT(); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { COUNT(); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { COUNT(); return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t a, size_t n) { COUNT(); return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { COUNT(); return __libc_memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n) {
    COUNT();
    void *p = __libc_memalign(a, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
