import Foundation

/// Launches child processes from one thread that lives as long as the process, so that a child asking for a
/// parent-death signal (`PR_SET_PDEATHSIG`, set by `setpriv --pdeathsig` before it execs Janus) gets it only when
/// the whole process dies.
///
/// Linux sends the parent-death signal when the *thread* that created the child exits, not the process. Foundation's
/// `Process.run()` spawns from the calling thread, and async code runs on libdispatch worker threads, which exit
/// after some idle time: a Janus spawned from one would be killed at a random moment of a healthy server. This thread
/// never exits; SIGKILL of the process ends it with the others, and then the kernel signals the child.
///
/// Threading: ``run(_:)`` may be called from anywhere; the work runs on the launcher's thread, one item at a time,
/// and should be short (a `posix_spawn`): nothing else waits on this thread.
final class ChildLauncher: Sendable {
    static let shared = ChildLauncher()

    /// The work waiting for the thread, guarded by its condition.
    private final class Queue: @unchecked Sendable {
        let condition = NSCondition()
        var items: [@Sendable () -> Void] = []  // guarded by `condition`
    }

    private let queue = Queue()

    private init() {
        let thread = Thread { [queue] in
            while true {
                queue.condition.lock()
                while queue.items.isEmpty { queue.condition.wait() }
                let work = queue.items.removeFirst()
                queue.condition.unlock()
                work()
            }
        }
        thread.name = "tokkit-child-launcher"
        thread.start()
    }

    /// Runs `work` on the launcher's thread and returns its result (the caller suspends; no thread blocks).
    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            queue.condition.lock()
            queue.items.append { continuation.resume(returning: work()) }
            queue.condition.signal()
            queue.condition.unlock()
        }
    }
}
