// Synchronisation that ThreadSanitizer cannot see, described to it. `scripts/test --sanitize thread` builds this
// into .build-tsan/tsan-sync.so and LD_PRELOADs it; it is part of no TokKit product. It adds happens-before edges
// exactly where a lock or hand-over really orders memory, and suppresses nothing: an access made outside the
// lock or hand-over is still reported. Processes not built with TSan (swift-build, Chromium, ffmpeg...) inherit
// the preload; for them every wrapper only calls the original.
//
// 1. Swift's `Synchronization.Mutex` on Linux. `withLock` is inlined into our code, so its fast paths (one
//    compare-and-exchange to lock, acquiring, one to unlock, releasing) are instrumented. When the lock is
//    contended the work moves to `_MutexHandle._lockSlow` / `_tryLockSlow` / `_unlockSlow` in
//    libswiftSynchronization.so, which is not instrumented and hands the lock over in the kernel (FUTEX_LOCK_PI /
//    FUTEX_UNLOCK_PI): without these wrappers every access a contended Mutex protects is reported as a race.
//    Swift 6.3.1 ABI: `self` (the address of the lock word) comes in the swiftself register, the thread id in the
//    first argument.
// 2. GLib's main loop. GLib (not instrumented) hands a callback and its data from the thread that queues it to
//    the thread running the GMainContext under its own futex-based GMutex. TokKit queues work onto its network
//    threads with `g_main_context_invoke_full` and `g_source_set_callback` (timeouts): the wrappers release where
//    the callback is handed to GLib and acquire where GLib calls or destroys it, on a small record of their own
//    that carries the original callback. libglib binds its own calls directly and calls from other libraries to
//    g_source_set_callback are passed through untouched, so only TokKit's hand-overs are described.
// 3. Continuations resumed before they are awaited. Swift 6.3.1's concurrency runtime releases on the task when a
//    continuation is resumed and acquires when the resumed task is run as a job, but when the continuation was
//    already resumed by the time the task awaits it, `swift_continuation_await` goes straight on to the code after
//    the `await` with no acquire: whatever the resuming thread wrote before resuming (the value handed over, the
//    task's own frame it read) is then reported as racing with the task. The wrapper of `swift_continuation_await`
//    (called by `withUnsafe(Throwing)Continuation`, which is inlined into the calling code) makes that "straight on"
//    go through a trampoline that acquires on the task first. tsan-continuations.swift covers the checked
//    continuations, whose await happens inside libswift_Concurrency. Swift 6.3.1 layout of a continuation context:
//    the resume function at +8, flags at +16 (bit 1: executor switch forced).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>

// Weak: absent in processes that are not built with TSan.
extern void __tsan_acquire(void *addr) __attribute__((weak));
extern void __tsan_release(void *addr) __attribute__((weak));

static void *original(const char *name) {
    void *function = dlsym(RTLD_NEXT, name);
    if (function == NULL) {
        fprintf(stderr, "tsan-sync: %s is in no library after the preload (toolchain or GLib changed?)\n", name);
        abort();
    }
    return function;
}

// MARK: 1. Synchronization.Mutex

#define SWIFTCALL __attribute__((swiftcall))
#define SWIFTSELF __attribute__((swift_context))
#define LOCK_SLOW "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
#define TRY_LOCK_SLOW "$s15Synchronization12_MutexHandleV12_tryLockSlowSbyF"
#define UNLOCK_SLOW "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"

typedef SWIFTCALL void (*lock_slow_t)(uint32_t self_id, SWIFTSELF void *self);
typedef SWIFTCALL bool (*try_lock_slow_t)(SWIFTSELF void *self);
typedef SWIFTCALL void (*unlock_slow_t)(SWIFTSELF void *self);

static lock_slow_t original_lock_slow;
static try_lock_slow_t original_try_lock_slow;
static unlock_slow_t original_unlock_slow;

SWIFTCALL void lock_slow(uint32_t self_id, SWIFTSELF void *self) __asm__(LOCK_SLOW);
SWIFTCALL bool try_lock_slow(SWIFTSELF void *self) __asm__(TRY_LOCK_SLOW);
SWIFTCALL void unlock_slow(SWIFTSELF void *self) __asm__(UNLOCK_SLOW);

SWIFTCALL void lock_slow(uint32_t self_id, SWIFTSELF void *self) {
    original_lock_slow(self_id, self);
    if (__tsan_acquire) __tsan_acquire(self);
}

SWIFTCALL bool try_lock_slow(SWIFTSELF void *self) {
    bool locked = original_try_lock_slow(self);
    if (locked && __tsan_acquire) __tsan_acquire(self);
    return locked;
}

SWIFTCALL void unlock_slow(SWIFTSELF void *self) {
    if (__tsan_release) __tsan_release(self);
    original_unlock_slow(self);
}

// MARK: 2. GLib main-loop hand-overs

typedef int (*source_func_t)(void *data);
typedef void (*destroy_notify_t)(void *data);
typedef void (*invoke_full_t)(void *context, int priority, source_func_t, void *data, destroy_notify_t);
typedef void (*set_callback_t)(void *source, source_func_t, void *data, destroy_notify_t);

static invoke_full_t original_invoke_full;
static set_callback_t original_set_callback;

struct handover {
    source_func_t function;
    void *data;
    destroy_notify_t notify;
};

static int handover_run(void *raw) {
    struct handover *h = raw;
    __tsan_acquire(h);
    return h->function(h->data);
}

static void handover_destroy(void *raw) {
    struct handover *h = raw;
    __tsan_acquire(h);
    if (h->notify) h->notify(h->data);
    free(h);
}

static struct handover *handover_new(source_func_t function, void *data, destroy_notify_t notify) {
    struct handover *h = malloc(sizeof *h);
    if (h == NULL) abort();
    h->function = function;
    h->data = data;
    h->notify = notify;
    __tsan_release(h);
    return h;
}

void g_main_context_invoke_full(void *context, int priority, source_func_t function, void *data,
                                destroy_notify_t notify) {
    if (original_invoke_full == NULL) original_invoke_full = (invoke_full_t)original("g_main_context_invoke_full");
    if (__tsan_release == NULL || function == NULL) {
        original_invoke_full(context, priority, function, data, notify);
        return;
    }
    original_invoke_full(context, priority, handover_run, handover_new(function, data, notify), handover_destroy);
}

// The program's own code (TokKit's, which only sets callbacks on timeout sources), as opposed to libraries such
// as libnice and GIO that also call g_source_set_callback, for socket and I/O sources whose callbacks take other
// arguments than a GSourceFunc: those are left alone.
static void *program_base;

static bool called_from_program(void *return_address) {
    Dl_info info;
    return program_base != NULL && dladdr(return_address, &info) != 0 && info.dli_fbase == program_base;
}

void g_source_set_callback(void *source, source_func_t function, void *data, destroy_notify_t notify) {
    if (original_set_callback == NULL) original_set_callback = (set_callback_t)original("g_source_set_callback");
    if (__tsan_release == NULL || function == NULL || !called_from_program(__builtin_return_address(0))) {
        original_set_callback(source, function, data, notify);
        return;
    }
    original_set_callback(source, handover_run, handover_new(function, data, notify), handover_destroy);
}

// MARK: 3. Continuations resumed before they are awaited

#define SWIFTASYNCCALL __attribute__((swiftasynccall))
#define SWIFTASYNCCONTEXT __attribute__((swift_async_context))

typedef SWIFTASYNCCALL void (*await_t)(void *context);
typedef SWIFTASYNCCALL void (*resume_t)(SWIFTASYNCCONTEXT void *context);

struct continuation_context {
    void *parent;
    resume_t resume_parent;
    uint32_t flags;
};

static await_t original_await;
// The resume function a trampoline stands in for. In the only cases where the runtime calls the trampoline (the
// continuation was resumed before or while it was awaited) it does so at once, on the awaiting thread.
static __thread resume_t displaced_resume;

SWIFTCALL void *swift_task_getCurrent(void);

static SWIFTASYNCCALL void acquire_then_resume(SWIFTASYNCCONTEXT void *context) {
    resume_t resume = displaced_resume;
    __tsan_acquire(swift_task_getCurrent());
    __attribute__((musttail)) return resume(context);
}

SWIFTASYNCCALL void continuation_await(void *context) __asm__("swift_continuation_await");

SWIFTASYNCCALL void continuation_await(void *raw) {
    struct continuation_context *context = raw;
    if (original_await == NULL) original_await = (await_t)original("swift_continuation_await");
    // A forced executor switch hands the resume function to swift_task_switch, which may run it elsewhere later:
    // left alone (it then runs as a job, which acquires).
    if (__tsan_acquire != NULL && (context->flags & 2) == 0) {
        displaced_resume = context->resume_parent;
        context->resume_parent = acquire_then_resume;
    }
    __attribute__((musttail)) return original_await(raw);
}

// Resolved before main, while one thread runs, for the libraries the process was linked with; a library opened
// later is resolved on first use.
__attribute__((constructor)) static void resolve(void) {
    if (dlsym(RTLD_NEXT, LOCK_SLOW) != NULL) {
        original_lock_slow = (lock_slow_t)original(LOCK_SLOW);
        original_try_lock_slow = (try_lock_slow_t)original(TRY_LOCK_SLOW);
        original_unlock_slow = (unlock_slow_t)original(UNLOCK_SLOW);
    }
    Dl_info program;
    if (dladdr((void *)getauxval(AT_PHDR), &program) != 0) program_base = program.dli_fbase;
    original_invoke_full = (invoke_full_t)dlsym(RTLD_NEXT, "g_main_context_invoke_full");
    original_set_callback = (set_callback_t)dlsym(RTLD_NEXT, "g_source_set_callback");
    original_await = (await_t)dlsym(RTLD_NEXT, "swift_continuation_await");
}
