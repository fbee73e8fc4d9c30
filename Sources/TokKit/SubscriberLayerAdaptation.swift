/// Which simulcast layer a routed subscriber's downlink can carry: a pure state machine (inputs in, actions out, the
/// time given with each input) that lowers the layer when the video loses packets and brings it back up, one layer at
/// a time, once the link has stayed clean (Docs/Routing.md, "Simulcast: the downlink lowers the layer").
///
/// Layers are numbered 0 (the smallest) to `layers − 1` (the full size), as Janus's substreams. The subscriber's
/// preference allows up to ``cap`` (the largest layer inside its `preferredResolution`); the link allows up to
/// ``ceiling`` (nil: no limit found); the subscriber gets ``layer``, the smaller of the two.
///
/// - **Lowering**: a sample (the video's cumulative RTP packets received and lost, about once a second) in which at
///   least ``Settings/lossToLower`` of the packets expected were lost, with at least ``Settings/minimumPackets``
///   expected, sets the ceiling one layer below the current one; so does a *stalled* sample, in which those packets
///   arrived but not one frame was decoded after frames had been (a layer whose keyframes do not get through: their
///   packets come late, retransmitted, so the loss count stays low while the picture freezes). Samples within
///   ``Settings/settle`` of a change are ignored (the loss they count belongs to the layer before).
/// - **Raising (probing)**: after ``hold`` of clean samples (loss at most ``Settings/lossClean``) and as long since
///   the last change, the ceiling goes up one layer; a layer at or above the cap lifts the limit. A probe that loses
///   packets within ``Settings/probeWindow`` goes back down and doubles ``hold`` (up to ``Settings/maximumHold``), so
///   a link that cannot carry the layer is probed less and less often instead of oscillating; a probe that stays
///   clean for the window resets ``hold`` to ``Settings/initialHold``.
/// - Never above the cap: nothing is probed once the layer reaches it, and a lower cap wins at once.
/// - A decrease of the counters (a new peer connection) starts a new baseline; ``stop()`` (the subscriber left) ends
///   it: every later input returns nil.
///
/// Value type, no clock of its own, no I/O: usable from any thread under its owner's lock.
struct SubscriberLayerAdaptation: Sendable {
    /// The thresholds and durations.
    struct Settings: Sendable, Equatable {
        /// The share of expected video packets lost in one sample that lowers the layer.
        var lossToLower = 0.08
        /// The share at most lost in a sample that counts as clean.
        var lossClean = 0.02
        /// The fewest packets expected in a sample for it to count (fewer: no judgement).
        var minimumPackets: Int64 = 15
        /// How long after a change samples are ignored.
        var settle: Duration = .seconds(2)
        /// Clean time needed before the first probe up, and after a probe that held.
        var initialHold: Duration = .seconds(6)
        /// The longest wait between probes.
        var maximumHold: Duration = .seconds(60)
        /// How long a probe must stay clean to count as held.
        var probeWindow: Duration = .seconds(5)
    }

    /// An output: the link's ceiling changed to this layer (nil: no limit). The owner sends the subscriber's
    /// preferences again, with the ceiling's size when it is below the preference.
    enum Action: Sendable, Equatable {
        case limit(Int?)
    }

    let settings: Settings
    /// The stream's layer count, 1...3.
    private(set) var layers = 1
    /// The largest layer the preference allows.
    private(set) var cap = 0
    /// The largest layer the link carries, when a limit was found.
    private(set) var ceiling: Int?
    /// The current wait of clean samples before a probe up.
    private(set) var hold: Duration
    /// Whether ``stop()`` ran.
    private(set) var stopped = false

    /// The previous sample's counters.
    private var last: (received: UInt64, lost: Int64, decoded: Int?)?
    /// When the ceiling last changed.
    private var changed: ContinuousClock.Instant?
    /// Since when every sample was clean.
    private var cleanSince: ContinuousClock.Instant?
    /// When the current probe started (the ceiling was raised and has not yet held for the probe window).
    private var probing: ContinuousClock.Instant?

    init(settings: Settings = Settings()) {
        self.settings = settings
        hold = settings.initialHold
    }

    /// The layer the subscriber gets: the preference's cap, lowered to the link's ceiling.
    var layer: Int { min(cap, ceiling ?? layers - 1) }

    /// The stream has `layers` layers (clamped to 1...3) and the preference allows up to `cap`. Returns the action
    /// when the ceiling changes (a ceiling at or above the new top is lifted).
    mutating func preference(layers: Int, cap: Int) -> Action? {
        guard !stopped else { return nil }
        self.layers = min(max(layers, 1), 3)
        self.cap = min(max(cap, 0), self.layers - 1)
        guard let ceiling, ceiling >= self.layers - 1 else { return nil }
        self.ceiling = nil
        return .limit(nil)
    }

    /// A sample of the video's cumulative packets `received` and `lost` (RFC 3550 A.3) and, when the video is
    /// decoded here, its cumulative frames `decoded`, at `now`.
    mutating func sample(received: UInt64, lost: Int64, decoded: Int? = nil,
                         at now: ContinuousClock.Instant) -> Action? {
        guard !stopped else { return nil }
        let previous = last
        last = (received, lost, decoded)
        guard let previous, received >= previous.received else {
            cleanSince = nil  // first sample, or new counters (a new peer connection): a new baseline
            return nil
        }
        let gotten = Int64(clamping: received - previous.received)
        let missed = max(lost - previous.lost, 0)
        if let changed, now - changed < settings.settle { return nil }
        let expected = gotten + missed
        guard expected >= settings.minimumPackets else { return nil }
        let share = Double(missed) / Double(expected)
        let stalled = decoded != nil && decoded == previous.decoded && (previous.decoded ?? 0) > 0
        if share >= settings.lossToLower || stalled { return lower(at: now) }
        guard share <= settings.lossClean else {
            cleanSince = nil
            return nil
        }
        if cleanSince == nil { cleanSince = now }
        if let probing, now - probing >= settings.probeWindow {
            self.probing = nil  // the probe held
            hold = settings.initialHold
        }
        return raiseIfDue(at: now)
    }

    /// The subscriber left: nothing more is decided.
    mutating func stop() {
        stopped = true
        probing = nil
        cleanSince = nil
    }

    private mutating func lower(at now: ContinuousClock.Instant) -> Action? {
        cleanSince = nil
        if let probing, now - probing < settings.probeWindow {
            hold = min(hold * 2, settings.maximumHold)  // the probe failed: wait longer before the next
        }
        probing = nil
        let current = layer
        guard current > 0 else { return nil }
        ceiling = current - 1
        changed = now
        return .limit(ceiling)
    }

    private mutating func raiseIfDue(at now: ContinuousClock.Instant) -> Action? {
        guard let ceiling, ceiling < cap, let cleanSince, now - cleanSince >= hold else { return nil }
        if let changed, now - changed < hold { return nil }
        let next = ceiling + 1
        self.ceiling = next >= layers - 1 ? nil : next
        changed = now
        probing = now
        self.cleanSince = nil
        return .limit(self.ceiling)
    }
}
