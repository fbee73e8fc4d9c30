// Small pieces of libc that Swift's Glibc module does not expose (they need _GNU_SOURCE).
#ifndef CTOKKITSYSTEM_H
#define CTOKKITSYSTEM_H
/// Names the calling thread (Linux keeps 15 bytes). Returns 0 or an errno value.
int tk_thread_set_name(const char *name);
#endif
