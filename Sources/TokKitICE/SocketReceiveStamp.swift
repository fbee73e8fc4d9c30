import CNice

/// The kernel's receive timestamp of the last datagram read from a UDP socket (`SIOCGSTAMPNS`): when the datagram
/// reached the host, not when a thread read it. The first read turns the socket's timestamps on.
struct SocketReceiveStamp: Equatable {
    /// The stamp, CLOCK_REALTIME nanoseconds (as the kernel keeps it).
    let realtime: Int64
    /// The same moment on CLOCK_MONOTONIC: the monotonic clock now minus the stamp's age on the real-time clock.
    let monotonic: Int64

    /// Why a socket gave no stamp.
    enum Failure: Error, Equatable {
        /// No datagram was read from the socket since its timestamps were turned on (`ENOENT`).
        case noDatagramYet
        /// Not a datagram socket (a TCP or TLS TURN connection: no per-datagram stamp).
        case notDatagramSocket
        /// The descriptor is not a socket with timestamps, or is closed (the `errno`).
        case failed(errno: Int32)
    }

    /// The stamp of the last datagram read from `fd`. Two clock reads and one `ioctl`; nothing allocated.
    static func last(of fd: Int32) throws(Failure) -> SocketReceiveStamp {
        var realtime: Int64 = 0, monotonic: Int64 = 0
        let result = tk_socket_receive_stamp(fd, &realtime, &monotonic)
        guard result == 0 else { throw result == -ENOENT ? .noDatagramYet : .failed(errno: -result) }
        return SocketReceiveStamp(realtime: realtime, monotonic: monotonic)
    }

    /// Checks that `fd` is a datagram socket, whose reads the kernel stamps one by one.
    static func checkDatagramSocket(_ fd: Int32) throws(Failure) {
        let result = tk_socket_is_datagram(fd)
        guard result >= 0 else { throw .failed(errno: -result) }
        guard result == 1 else { throw .notDatagramSocket }
    }
}
