// Counts heap allocations of the whole process by interposing malloc & co (glibc's __libc_* do the work).
// Link it only into benchmark executables.
#ifndef CMALLOCCOUNTER_H
#define CMALLOCCOUNTER_H
#include <stdint.h>
/// Allocation calls (malloc, calloc, realloc, memalign family) since the process started.
uint64_t tk_malloc_count(void);
#endif
