import CNice
import Synchronization

/// The state libnice's C callbacks reach through their `Unmanaged` user-data pointer. Every member is
/// immutable or Mutex-guarded: callbacks arrive on the loop thread or on whichever thread called into
/// libnice.
final class ICEAgentCore: Sendable {
    /// A receive handler: called on the loop thread with a datagram valid only during the call.
    typealias ReceiveHandler = @Sendable (UnsafeRawBufferPointer) -> Void

    struct Control {
        var state: ICEState = .new
        var wasConnected = false
        var signalHandlers: [UInt] = []
        /// Local candidates gathered (reported as events).
        var localCandidates = 0
    }

    /// The receive handler in a non-generic struct. A bare closure in `Mutex<ReceiveHandler?>` is stored at the
    /// generic (maximally abstract) representation, and every `withLock` re-stores it through the `inout` wrapped in
    /// two more reabstraction thunks: read once per datagram, the chain grew by one level per packet, so each
    /// delivery got slower (tens of µs after a few thousand packets) and the recursion would finally overflow the
    /// stack. A struct field keeps the closure's own representation: one read is a retain.
    struct Receiver: Sendable {
        let handler: ReceiveHandler
    }

    let streamID: UInt32
    let control = Mutex(Control())
    let receiver = Mutex<Receiver?>(nil)
    /// The last pair libnice selected.
    let selectedPair = Mutex<ICECandidatePair?>(nil)
    let continuation: AsyncStream<ICEEvent>.Continuation
    /// The agent while it may be used for sending; `nil` once closing started.
    let sendPath: Mutex<NiceAgentHandle?>
    /// Whether delivered datagrams are given arrival times (a batching agent; without batching the clock is read when
    /// a datagram is handled, as soon as it arrived).
    let timesArrivals: Bool
    /// Their arrival times (used when ``timesArrivals``).
    let arrivals: Mutex<DatagramArrivalClock>
    /// The arrival time of the datagram being delivered (CLOCK_MONOTONIC nanoseconds), 0 outside a delivery or
    /// without ``timesArrivals``. Written and read on the loop thread.
    let currentArrival = Atomic<UInt64>(0)

    init(agent: NiceAgentHandle, streamID: UInt32, continuation: AsyncStream<ICEEvent>.Continuation,
         batching: Duration?) {
        self.streamID = streamID
        self.continuation = continuation
        self.sendPath = Mutex(agent)
        timesArrivals = (batching ?? .zero) > .zero
        arrivals = Mutex(DatagramArrivalClock(maximumAge: (batching ?? .zero) + .seconds(1)))
    }

    /// Hands a datagram libnice just read to the receive handler (loop thread), with its arrival time when the agent
    /// batches. No allocation: a lock and a retain (with batching, one more lock, two clock reads and an `ioctl`).
    @inline(__always)
    func deliver(_ datagram: UnsafeRawBufferPointer, agent: OpaquePointer?) {
        guard let current = receiver.withLock({ $0 }) else { return }
        guard timesArrivals else {
            current.handler(datagram)
            return
        }
        if let agent, let selection = arrivals.withLock({ $0.selectionNeedingSocket }) {
            // libnice's lock is free here (it calls back after unlocking), and no lock of ours is held around it.
            let socket = DatagramArrivalClock.SocketReference(nice_agent_get_selected_socket(agent, streamID, 1))
            arrivals.withLock { $0.use(socket, selection: selection) }
        }
        currentArrival.store(arrivals.withLock { $0.arrival() }, ordering: .relaxed)
        current.handler(datagram)
        currentArrival.store(0, ordering: .relaxed)
    }

    /// How many delivered datagrams were timed by the kernel's stamp and by the clock (zeros without batching).
    var arrivalCounts: (kernel: Int, clock: Int) {
        arrivals.withLock { ($0.kernelStamped, $0.clockStamped) }
    }

    /// Lets go of the selected socket (the agent is closing).
    func releaseSocket() {
        arrivals.withLock { $0.release() }
    }

    /// Maps a libnice component state and reports a change.
    func componentStateChanged(_ nice: NiceComponentState) {
        let changed: ICEState? = control.withLock { c in
            guard c.state != .closed else { return nil }
            let next: ICEState
            switch nice {
            case NICE_COMPONENT_STATE_CONNECTING: next = .checking
            case NICE_COMPONENT_STATE_CONNECTED, NICE_COMPONENT_STATE_READY: next = .connected
            case NICE_COMPONENT_STATE_FAILED: next = .failed
            case NICE_COMPONENT_STATE_DISCONNECTED: next = c.wasConnected ? .disconnected : .new
            default: return nil  // gathering: still `new`
            }
            if next == .connected { c.wasConnected = true }
            guard next != c.state else { return nil }
            c.state = next
            return next
        }
        if let changed { continuation.yield(.stateChanged(changed)) }
    }

    /// Reports a local candidate and counts it.
    func gathered(_ candidate: ICECandidate) {
        control.withLock { $0.localCandidates += 1 }
        emit(.localCandidate(candidate))
    }

    /// Gathering finished. With no local candidate at all (relay-only and every TURN allocation refused or
    /// unanswered, or no usable interface) no pair can ever form and libnice would wait forever: the agent fails.
    func gatheringDone() {
        emit(.gatheringComplete)
        let failed: Bool = control.withLock { c in
            guard c.localCandidates == 0, c.state != .closed, c.state != .failed else { return false }
            c.state = .failed
            return true
        }
        if failed { continuation.yield(.stateChanged(.failed)) }
    }

    /// Remembers and reports the pair libnice selected.
    func select(_ pair: ICECandidatePair) {
        selectedPair.withLock { $0 = pair }
        if timesArrivals { arrivals.withLock { $0.selectionChanged() } }
        emit(.selectedPair(pair))
    }

    /// Reports an event unless the agent is closed.
    func emit(_ event: ICEEvent) {
        let open = control.withLock { $0.state != .closed }
        if open { continuation.yield(event) }
    }
}
