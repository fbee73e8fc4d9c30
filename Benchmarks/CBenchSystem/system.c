#define _GNU_SOURCE
#include <sched.h>
#include "CBenchSystem.h"

int bench_pin_thread_to_cpu(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}
