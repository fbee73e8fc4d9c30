// Small pieces of libc that Swift's Glibc module does not expose (they need _GNU_SOURCE).
#ifndef CTOKKITSYSTEM_H
#define CTOKKITSYSTEM_H
/// Names the calling thread (Linux keeps 15 bytes). Returns 0 or an errno value.
int tk_thread_set_name(const char *name);
/// Returns the free memory of every malloc arena to the system (glibc's malloc_trim(0)). Returns 1 if some was.
int tk_malloc_trim(void);
#endif
