import Synchronization

/// ``RoutedMedia``'s work queues: one FIFO lane per TokKit session (its commands are handled in order, one at a
/// time; lanes run side by side), and a count of each client connection's commands waiting or running, bounded by
/// `maxPerConnection` so that one client flooding negotiation messages can neither grow the server's memory without
/// bound nor hold a session's lane for long.
///
/// State: a lane exists while it has commands or is being drained (``push(_:lane:connectionID:)`` says `start` when
/// a drain must begin; ``next(in:)`` returning nil ends it). After ``finish()`` nothing more is queued.
///
/// Threading: any method from any thread (one `Mutex`; waiters resumed outside it).
final class RoutedMediaLanes: Sendable {
    /// A queued command and the client it counts against.
    struct Entry: Sendable {
        let command: RoutedMediaCommand
        let connectionID: String?
    }

    /// What ``push(_:lane:connectionID:)`` did.
    enum Push: Equatable {
        /// Queued behind a drain already running.
        case queued
        /// Queued in an idle lane: the caller starts draining it.
        case start
        /// Not queued: the client has `maxPerConnection` commands pending, or ``finish()`` was called.
        case refused
    }

    private struct Lane {
        var entries: [Entry] = []
        var head = 0
        var isEmpty: Bool { head == entries.count }
    }

    private struct State {
        var lanes: [String: Lane] = [:]
        var perConnection: [String: Int] = [:]
        var finished = false
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Most commands of one connection waiting or running.
    let maxPerConnection: Int
    private let state = Mutex(State())

    init(maxPerConnection: Int) {
        self.maxPerConnection = max(1, maxPerConnection)
    }

    /// Queues `command` in `lane`, counted against `connectionID` (nil: never refused, except after finish).
    /// With `refusable` false it is counted but never refused (a client's `unsubscribe`: freeing must always be
    /// possible, yet its work at the media router still holds back the same client's next messages).
    func push(_ command: RoutedMediaCommand, lane key: String, connectionID: String?, refusable: Bool = true) -> Push {
        state.withLock { s in
            guard !s.finished else { return .refused }
            if let connectionID {
                let pending = s.perConnection[connectionID, default: 0]
                guard pending < maxPerConnection || !refusable else { return .refused }
                s.perConnection[connectionID] = pending + 1
            }
            let entry = Entry(command: command, connectionID: connectionID)
            if s.lanes[key] != nil {
                s.lanes[key]!.entries.append(entry)
                return .queued
            }
            s.lanes[key] = Lane(entries: [entry])
            return .start
        }
    }

    /// The next command of `lane`, or nil when it is empty (the lane then ends: the next push starts a drain).
    func next(in key: String) -> Entry? {
        let (entry, waiters) = state.withLock { s -> (Entry?, [CheckedContinuation<Void, Never>]) in
            guard var lane = s.lanes[key] else { return (nil, []) }
            guard !lane.isEmpty else {
                s.lanes[key] = nil
                guard s.finished, s.lanes.isEmpty else { return (nil, []) }
                defer { s.idleWaiters = [] }
                return (nil, s.idleWaiters)
            }
            let entry = lane.entries[lane.head]
            lane.head += 1
            if lane.head >= 64, lane.head * 2 >= lane.entries.count {
                lane.entries.removeFirst(lane.head)
                lane.head = 0
            }
            s.lanes[key] = lane
            return (entry, [])
        }
        for waiter in waiters { waiter.resume() }
        return entry
    }

    /// `entry` was handled: it no longer counts against its connection.
    func done(_ entry: Entry) {
        guard let connectionID = entry.connectionID else { return }
        state.withLock { s in
            let left = s.perConnection[connectionID, default: 1] - 1
            s.perConnection[connectionID] = left > 0 ? left : nil
        }
    }

    /// Commands of `connectionID` waiting or running now.
    func pending(for connectionID: String) -> Int {
        state.withLock { $0.perConnection[connectionID] ?? 0 }
    }

    /// Refuses every later push; ``waitUntilFinishedAndIdle()`` returns once the lanes have drained.
    func finish() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.finished = true
            guard s.lanes.isEmpty else { return [] }
            defer { s.idleWaiters = [] }
            return s.idleWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once ``finish()`` was called and no lane has work.
    func waitUntilFinishedAndIdle() async {
        await withCheckedContinuation { (k: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.finished && s.lanes.isEmpty { return true }
                s.idleWaiters.append(k)
                return false
            }
            if now { k.resume() }
        }
    }
}
