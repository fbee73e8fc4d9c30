import CNice
import Glibc

/// When each datagram an agent delivers arrived (``ICEAgent/receivedDatagramArrival``), for an agent whose network
/// thread batches its reads (``ICEConfiguration/receiveBatching``): read up to an interval late, a datagram's
/// arrival time is the kernel's receive timestamp of the selected pair's socket (``SocketReceiveStamp``), taken
/// right after libnice read it (libnice calls the receive callback on the loop thread after each `recvmsg`).
///
/// A stamp is used only when it is newer than the last one used (a datagram read from another socket, e.g. of a
/// pair that is not the selected one, leaves the selected socket's stamp as it was), not in the future and at most
/// ``maximumAge`` old; otherwise, and without a usable socket (none selected yet; a TURN relay candidate, for which
/// libnice gives no socket; a stream socket), the arrival time is the clock now. Arrival times never go back.
///
/// Threading: the loop thread only (its owner keeps it in a `Mutex`). Holds a reference on the selected socket's
/// `GSocket` (the object, not its descriptor: libnice closes the socket when it frees it, so a closed one is not
/// asked again); ``release()`` lets go of it.
struct DatagramArrivalClock: ~Copyable {
    /// The oldest stamp taken for the datagram being delivered, in nanoseconds.
    let maximumAge: Int64
    /// The selected pair's socket (a reference held), `nil` when none is known or it is not a datagram socket.
    private var socket: UnsafeMutablePointer<GSocket>?
    private var fd: Int32 = -1
    /// How many times the selected pair changed (``selectionChanged()``), and the count ``socket`` was read at
    /// (`-1`: never): a selection that comes while a socket is being looked up is not lost, and a lookup that found
    /// none (no pair selected yet, or a relayed pair, whose socket libnice does not give out) is not repeated for
    /// every datagram.
    private var selection = 0
    private var socketSelection = -1
    private var lastStamp = Int64.min
    private var lastArrival: UInt64 = 0
    /// Datagrams timed by the kernel's stamp and by the clock.
    private(set) var kernelStamped = 0
    private(set) var clockStamped = 0

    init(maximumAge: Duration) {
        self.maximumAge = maximumAge.nanoseconds
    }

    /// The selected pair changed: the socket is read again before the next datagram is timed.
    mutating func selectionChanged() { selection += 1 }

    /// The selection to look the socket up for (then handed to ``use(_:selection:)``), `nil` when it is known.
    var selectionNeedingSocket: Int? { socketSelection == selection ? nil : selection }

    /// A `GSocket *` handed from the loop thread into the `Mutex` that keeps this clock (one reference, owned by
    /// whoever holds it).
    struct SocketReference: @unchecked Sendable {
        let pointer: UnsafeMutablePointer<GSocket>?
        init(_ pointer: UnsafeMutablePointer<GSocket>?) { self.pointer = pointer }
    }

    /// Uses `selected` (a new reference, from `nice_agent_get_selected_socket`, or `nil`), looked up for
    /// `selection` (``selectionNeedingSocket``), as the selected pair's socket, if it is a datagram socket and the
    /// selection did not change meanwhile (then the next datagram looks again).
    mutating func use(_ reference: SocketReference, selection: Int) {
        let selected = reference.pointer
        guard selection == self.selection else {
            if let selected { g_object_unref(selected) }
            return
        }
        release()
        socketSelection = selection
        guard let selected else { return }
        let descriptor = g_socket_get_fd(selected)
        do throws(SocketReceiveStamp.Failure) {
            try SocketReceiveStamp.checkDatagramSocket(descriptor)
            socket = selected
            fd = descriptor
            // The first read turns the socket's stamps on (and the kernel's, after a deferred step): done now, so
            // that the media datagrams to come are stamped.
            _ = try? SocketReceiveStamp.last(of: descriptor)
        } catch {
            g_object_unref(selected)  // TCP or TLS TURN: the clock times its datagrams
        }
    }

    /// The arrival time of the datagram just read, in CLOCK_MONOTONIC nanoseconds.
    mutating func arrival() -> UInt64 {
        let now = Self.monotonicNow()
        var at = now
        // A socket libnice closed (its descriptor may since be another's) is not asked.
        if fd >= 0, let socket, g_socket_is_closed(socket) == 0, let stamp = try? SocketReceiveStamp.last(of: fd), stamp.realtime > lastStamp,
           stamp.monotonic > 0, stamp.monotonic <= Int64(clamping: now), Int64(clamping: now) - stamp.monotonic <= maximumAge {
            lastStamp = stamp.realtime
            at = UInt64(stamp.monotonic)
            kernelStamped += 1
        } else {
            clockStamped += 1
        }
        lastArrival = max(lastArrival, at)
        return lastArrival
    }

    /// Lets go of the socket.
    mutating func release() {
        if let socket { g_object_unref(socket) }
        socket = nil
        fd = -1
    }

    deinit { if let socket { g_object_unref(socket) } }

    static func monotonicNow() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}
