/// Where ``RoutedMedia`` places a routed TokKit session among its Janus instances (Docs/Routing.md, "Placement"):
/// pure bookkeeping, no I/O, the time passed in.
///
/// An instance's *load* is its weight now: the TokKit sessions placed on it plus the Janus handles they hold there
/// (one per routed stream's upstream, one per subscription: ``setHandles(_:)``), so an instance carrying one large
/// session counts as more loaded than one carrying two calls of two. A session counts from the moment it is placed
/// (sessions placed side by side spread before any of them has a handle). A new session goes to the least loaded
/// instance that is *up* (not marked down), ties to the one configured first; ``RoutedMedia`` tries the
/// ``candidates(now:)`` in order, each once (a bounded retry), and marks an instance it cannot reach
/// ``markUnreachable(_:now:)``: down for ``firstBackoff``, doubling with each failure in a row up to ``maxBackoff``;
/// one that answers is up again at once (``markReachable(_:)``). An instance whose Janus session was lost is down
/// for at least ``lostBackoff``: its sessions are moving away, and a dead instance would otherwise be tried first
/// (it holds no session any more) by the very offers that move them. When every instance is down, the one whose down
/// period ends first is still tried (a server with one instance tries it at each placement, as before placement
/// existed), so a recovered instance is found again without waiting for its backoff to end.
struct RoutedMediaPlacement: Sendable, Equatable {
    /// One instance's bookkeeping.
    struct Instance: Sendable, Equatable {
        /// TokKit sessions placed on it now.
        var sessions = 0
        /// Janus handles (routed streams and subscriptions) of those sessions, as last given by ``setHandles(_:)``.
        var handles = 0
        /// Its weight: sessions plus handles.
        var load: Int { sessions + handles }
        /// Failures to reach it in a row (0: reachable, or never tried).
        var failures = 0
        /// Until when it is skipped, if it is marked down.
        var downUntil: ContinuousClock.Instant?
    }

    /// The down period after a first failure.
    static let firstBackoff: Duration = .seconds(1)
    /// The longest down period.
    static let maxBackoff: Duration = .seconds(30)
    /// The shortest down period of an instance whose Janus session was lost.
    static let lostBackoff: Duration = .seconds(10)

    private(set) var instances: [Instance]

    /// `count` instances, none loaded, all up.
    init(count: Int) {
        instances = Array(repeating: Instance(), count: max(0, count))
    }

    /// Whether instance `index` is up at `now` (not marked down, or its down period is over).
    func isUp(_ index: Int, now: ContinuousClock.Instant) -> Bool {
        guard instances.indices.contains(index) else { return false }
        return instances[index].downUntil.map { now >= $0 } ?? true
    }

    /// Whether some instance other than `index` is up at `now` (a session lost with `index` can move there).
    func hasUpInstance(besides index: Int, now: ContinuousClock.Instant) -> Bool {
        instances.indices.contains { $0 != index && isUp($0, now: now) }
    }

    /// The instances to try for a new session, in order: the up ones by load, then by configuration order; when
    /// none is up, only the one whose down period ends first (ties: configuration order). Empty only without
    /// instances.
    func candidates(now: ContinuousClock.Instant) -> [Int] {
        let up = instances.indices.filter { isUp($0, now: now) }
        if !up.isEmpty {
            return up.sorted { (instances[$0].load, $0) < (instances[$1].load, $1) }
        }
        let soonest = instances.indices.min { a, b in
            let (da, db) = (instances[a].downUntil ?? now, instances[b].downUntil ?? now)
            return da == db ? a < b : da < db
        }
        return soonest.map { [$0] } ?? []
    }

    /// A session was placed on `index`.
    mutating func placed(on index: Int) {
        guard instances.indices.contains(index) else { return }
        instances[index].sessions += 1
    }

    /// A session placed on `index` left it (ended, moved, or its placement failed).
    mutating func released(from index: Int) {
        guard instances.indices.contains(index) else { return }
        instances[index].sessions = max(0, instances[index].sessions - 1)
    }

    /// The routed streams and subscriptions (Janus handles, held or about to be) of the sessions on each instance,
    /// by index; missing indices count none, negative counts count as none.
    mutating func setHandles(_ perInstance: [Int]) {
        for index in instances.indices {
            instances[index].handles = max(0, index < perInstance.count ? perInstance[index] : 0)
        }
    }

    /// `index` answered: up, its failure count reset.
    mutating func markReachable(_ index: Int) {
        guard instances.indices.contains(index) else { return }
        instances[index].failures = 0
        instances[index].downUntil = nil
    }

    /// `index` could not be reached, or its Janus session was lost: down from `now` for ``firstBackoff`` doubled
    /// per earlier failure in a row, at most ``maxBackoff``, and at least `atLeast`.
    mutating func markUnreachable(_ index: Int, now: ContinuousClock.Instant, atLeast: Duration = .zero) {
        guard instances.indices.contains(index) else { return }
        let failures = instances[index].failures
        instances[index].failures = failures + 1
        let doubled = Self.firstBackoff * (1 << min(failures, 16))
        instances[index].downUntil = now + max(min(doubled, Self.maxBackoff), atLeast)
    }
}
