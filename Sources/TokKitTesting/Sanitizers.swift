#if canImport(Glibc)
import Glibc
#endif

/// Whether this process runs under ThreadSanitizer or AddressSanitizer (`scripts/test --sanitize thread|address`):
/// the sanitizer's runtime is linked into the executable and exports `__tsan_init` / `__asan_init`.
///
/// Instrumented Swift code runs several times slower (ThreadSanitizer most: every memory access of the per-pixel
/// and per-packet paths is checked), so the few tests that measure real-time throughput against a wall clock (frames
/// decoded per frames sent, frames rendered in a few seconds) lower their bar or lengthen their window there. What
/// they check stays the same, and they still fail when media does not flow.
public enum Sanitizers {
    /// True in a process built with ThreadSanitizer or AddressSanitizer.
    public static let active: Bool = dlsym(nil, "__tsan_init") != nil || dlsym(nil, "__asan_init") != nil
}
