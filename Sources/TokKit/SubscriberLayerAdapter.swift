import Synchronization
import TokKitPeer
import TokKitStreaming

/// Runs a routed subscriber's ``SubscriberLayerAdaptation``: about once a second it hands the machine the video's
/// packet counters with the time, and when the link's ceiling changes it has the ``Subscriber`` send its preferences
/// again, `preferredResolution` lowered to the ceiling's layer size (the server then forwards that layer,
/// Docs/Routing.md, "Simulcast: the downlink lowers the layer").
///
/// Started at the first offer from the media router (a routed subscription: relayed ones have one layer and never
/// adapt); stopped when the subscription ends. Layer sizes are those a TokKit publisher sends for the stream's
/// announced `videoDimensions` (``SimulcastLayout``, the rule the server uses too); a stream that announced no size
/// does not adapt.
///
/// ## Threading
/// Thread-safe: one lock-guarded state; the sampling runs in one task per subscriber, which ends when ``stop()``
/// cancels it (the subscription ended) or within one interval of the subscriber going away. Nothing here runs per
/// packet. Lock order: the subscriber's lock, then this one (``update(published:preferred:)`` is called under it).
final class SubscriberLayerAdapter: Sendable {
    private struct State {
        var machine: SubscriberLayerAdaptation
        /// The stream's layer sizes, smallest first (empty: unknown, no adaptation).
        var sizes: [VideoDimensions] = []
        var phase = Phase.idle
        /// The sampling task, from ``start(_:)`` until it ends.
        var task: Task<Void, Never>?
    }

    /// Where the adapter is in its life.
    enum Phase: Sendable, Equatable {
        case idle
        case sampling
        case stopped
    }

    private let state: Mutex<State>
    /// Time between samples.
    let interval: Duration
    /// The clock samples are timed by.
    private let now: @Sendable () -> ContinuousClock.Instant

    init(settings: SubscriberLayerAdaptation.Settings = .init(), interval: Duration = .seconds(1),
         now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        state = Mutex(State(machine: SubscriberLayerAdaptation(settings: settings)))
        self.interval = interval
        self.now = now
    }

    /// Where the adapter is.
    var phase: Phase { state.withLock { $0.phase } }

    /// The size the downlink limits the subscription to, below its preference; nil when not limited.
    var limit: VideoDimensions? {
        state.withLock { s in
            guard let ceiling = s.machine.ceiling, ceiling < s.machine.cap, ceiling < s.sizes.count else { return nil }
            return s.sizes[ceiling]
        }
    }

    /// The resolution to ask the server for: `preferred`, or the link's limit's layer size when `preferred` would
    /// choose a larger layer (the server takes the largest layer inside the resolution asked for).
    func effectiveResolution(_ preferred: VideoDimensions?) -> VideoDimensions? {
        state.withLock { s in
            guard let ceiling = s.machine.ceiling, ceiling < s.sizes.count,
                  ceiling < Self.cap(of: preferred, in: s.sizes)
            else { return preferred }
            return s.sizes[ceiling]
        }
    }

    /// The largest layer inside `preferred` (the smallest when none fits, the full size for none).
    private static func cap(of preferred: VideoDimensions?, in sizes: [VideoDimensions]) -> Int {
        preferred.map { p in sizes.lastIndex { $0.width <= p.width && $0.height <= p.height } ?? 0 }
            ?? max(sizes.count - 1, 0)
    }

    /// The stream's announced size or the preference changed; true when that lifted the link's limit.
    @discardableResult
    func update(published: VideoDimensions?, preferred: VideoDimensions?) -> Bool {
        let sizes = published.map { size in
            SimulcastLayout(width: size.width, height: size.height, bitrate: 0,
                            maximumLayers: SimulcastLayout.maximumLayers)
                .layers.map { layer in VideoDimensions(width: layer.width, height: layer.height) }
        } ?? []
        let cap = Self.cap(of: preferred, in: sizes)
        return state.withLock { s in
            s.sizes = sizes
            return s.machine.preference(layers: max(sizes.count, 1), cap: cap) != nil
        }
    }

    /// Starts sampling `subscriber`'s video (once; not after ``stop()``). The subscriber has handed over its stream's
    /// size and its preference (``update(published:preferred:)``, under its own lock) before.
    func start(_ subscriber: Subscriber) {
        guard begin() else { return }
        let task = Task { [weak subscriber, interval] in
            while true {
                try? await Task.sleep(for: interval)
                // Checked before anything else: a subscription that ended has no peer any more, and an app may keep
                // its Subscriber for long after.
                guard self.phase == .sampling, let subscriber else { return }
                guard let track = subscriber.media.peer?.statistics(.video) else { continue }
                let decoded = subscriber.media.videoFramesDecoded
                guard let changed = self.sample(received: track.packetsReceived, lost: track.packetsLost,
                                                decoded: decoded)
                else { return }
                if changed { subscriber.resendPreferences() }
            }
        }
        let stopped = state.withLock { s in
            s.task = task
            return s.phase == .stopped
        }
        if stopped { task.cancel() }
    }

    /// The sampling task, once started (it ends within one interval of ``stop()``, at once when cancelled).
    var samplingTask: Task<Void, Never>? { state.withLock { $0.task } }

    /// Moves from idle to sampling; false in any other phase. ``start(_:)`` does it before starting its task.
    func begin() -> Bool {
        state.withLock { s in
            guard s.phase == .idle else { return false }
            s.phase = .sampling
            return true
        }
    }

    /// One sample; nil once stopped, else whether the link's ceiling changed.
    func sample(received: UInt64, lost: Int64, decoded: Int? = nil) -> Bool? {
        let at = now()
        return state.withLock { s in
            guard s.phase == .sampling else { return nil }
            return s.machine.sample(received: received, lost: lost, decoded: decoded, at: at) != nil
        }
    }

    /// The subscription ended: sampling stops (its task is cancelled and ends).
    func stop() {
        let task = state.withLock { s in
            s.phase = .stopped
            s.machine.stop()
            return s.task
        }
        task?.cancel()
    }
}
