#ifndef C_BENCH_SYSTEM_H
#define C_BENCH_SYSTEM_H

/// Binds the calling thread to one CPU (sched_setaffinity(2), which Swift's Glibc does not import: it needs
/// _GNU_SOURCE). Returns 0, or -1 with errno set.
int bench_pin_thread_to_cpu(int cpu);

#endif
