// The other half of tsan-sync.c, in Swift because it replaces two Swift functions: `scripts/test --sanitize
// thread` builds it into .build-tsan/libtsan-continuations.so and LD_PRELOADs it next to tsan-sync.so. Part of no
// TokKit product.
//
// Swift 6.3.1's concurrency runtime tells TSan that resuming a continuation happens before the task goes on
// (a release on the task in `resumeTaskAfterContinuation`, an acquire when the resumed task is run as a job), but
// not when the continuation was already resumed by the time the task awaits it: `swift_continuation_await` then
// goes on at once, with no acquire. A value made on the resuming thread and handed over through the continuation
// is then reported as a race when the task reads it (NIO's async channels hit this on every WebSocket frame).
// These replacements of `withCheckedContinuation` / `withCheckedThrowingContinuation` (same symbols, same
// behaviour: a checked continuation over an unsafe one) add the missing acquire on the current task after every
// resumption. Only calls made from outside libswift_Concurrency come here; the library binds its own calls.
import Glibc

private typealias TSanFunction = @convention(c) (UnsafeMutableRawPointer?) -> Void

/// `__tsan_acquire`, when the process is built with TSan.
private let tsanAcquire: TSanFunction? = dlsym(nil, "__tsan_acquire").map { unsafeBitCast($0, to: TSanFunction.self) }

/// Acquires on the current task, where the runtime released when the continuation was resumed.
private func acquireCurrentTask() {
    guard let tsanAcquire else { return }
    withUnsafeCurrentTask { task in tsanAcquire(unsafeBitCast(task, to: UnsafeMutableRawPointer?.self)) }
}

@_silgen_name("$ss23withCheckedContinuation9isolation8function_xScA_pSgYi_SSyScCyxs5NeverOGXEtYalF")
public func tsanWithCheckedContinuation<T>(
    isolation: isolated (any Actor)?, function: String, _ body: (CheckedContinuation<T, Never>) -> Void
) async -> sending T {
    let value = await withUnsafeContinuation(isolation: isolation) {
        body(CheckedContinuation(continuation: $0, function: function))
    }
    acquireCurrentTask()
    return value
}

@_silgen_name("$ss31withCheckedThrowingContinuation9isolation8function_xScA_pSgYi_SSyScCyxs5Error_pGXEtYaKlF")
public func tsanWithCheckedThrowingContinuation<T>(
    isolation: isolated (any Actor)?, function: String, _ body: (CheckedContinuation<T, any Error>) -> Void
) async throws -> sending T {
    defer { acquireCurrentTask() }
    return try await withUnsafeThrowingContinuation(isolation: isolation) {
        body(CheckedContinuation(continuation: $0, function: function))
    }
}
