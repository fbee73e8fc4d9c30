import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to 127.0.0.1 for tests of the HTTP layer: sends bytes exactly as given (malformed
/// requests, slow dribbles) and reads what comes back until the server closes.
///
/// The socket is non-blocking and every call waits with `poll` up to a deadline, on a thread of its own (never on
/// the cooperative pool). Thread-safe: the descriptor is only read, and closed once.
final class RawTCP: Sendable {
    /// What the server sent and whether it closed (EOF or reset) before the deadline.
    struct Reply: Sendable {
        var bytes: [UInt8] = []
        var closed = false

        var text: String { String(decoding: bytes, as: UTF8.self) }
        /// The status code of the first response line, if any.
        var status: Int? {
            let line = text.prefix { $0 != "\r" }.split(separator: " ")
            guard line.count >= 2, line[0].hasPrefix("HTTP/1.") else { return nil }
            return Int(line[1])
        }
        /// The body after the first blank line.
        var body: [UInt8] {
            guard let range = text.range(of: "\r\n\r\n") else { return [] }
            return Array(text[range.upperBound...].utf8)
        }
    }

    private let fd: Int32

    private init(fd: Int32) {
        self.fd = fd
    }

    deinit {
        Glibc.close(fd)
    }

    /// Connects to 127.0.0.1:`port`; with `receiveBuffer` the socket's receive buffer is that small (a client that
    /// does not read then makes the server's queue fill sooner).
    static func connect(port: Int, receiveBuffer: Int32? = nil) async throws -> RawTCP {
        let fd = await offPool { () -> Int32 in
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return -1 }
            if var size = receiveBuffer {
                _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port)).bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard result == 0 else {
                Glibc.close(fd)
                return -1
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            return fd
        }
        guard fd >= 0 else { throw TestFailure("cannot connect to 127.0.0.1:\(port): errno \(errno)") }
        return RawTCP(fd: fd)
    }

    /// Sends all of `bytes` within `timeout`; false if the peer closed or reset, or the time ran out.
    @discardableResult
    func send(_ bytes: [UInt8], within timeout: Duration = .seconds(5)) async -> Bool {
        await offPool { [fd] in
            let deadline = ContinuousClock.now + timeout
            var sent = 0
            while sent < bytes.count {
                guard Self.poll(fd, events: Int16(POLLOUT), until: deadline) else { return false }
                let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n > 0 {
                    sent += n
                } else if n < 0, errno == EAGAIN || errno == EINTR {
                    continue
                } else {
                    return false
                }
            }
            return true
        }
    }

    @discardableResult
    func send(_ text: String, within timeout: Duration = .seconds(5)) async -> Bool {
        await send(Array(text.utf8), within: timeout)
    }

    /// True once sending fails because the server closed the connection completely (not just its sending side):
    /// a byte sent to a closed socket is answered with a reset, and the next send fails. Tries every 50 ms until
    /// `timeout`.
    func closedByPeer(within timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard await send([0x0A], within: .seconds(1)) else { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Reads until the server closes (EOF or reset) or `timeout` passes.
    func readUntilClosed(within timeout: Duration) async -> Reply {
        await offPool { [fd] in
            let deadline = ContinuousClock.now + timeout
            var reply = Reply()
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while Self.poll(fd, events: Int16(POLLIN), until: deadline) {
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n > 0 {
                    reply.bytes += chunk[..<n]
                } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                    reply.closed = true
                    break
                }
            }
            return reply
        }
    }

    /// Reads until one whole response head arrived (a blank line), the server closed, or `timeout` passed.
    func readHead(within timeout: Duration) async -> Reply {
        await offPool { [fd] in
            let deadline = ContinuousClock.now + timeout
            var reply = Reply()
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while !reply.text.contains("\r\n\r\n"), Self.poll(fd, events: Int16(POLLIN), until: deadline) {
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n > 0 {
                    reply.bytes += chunk[..<n]
                } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                    reply.closed = true
                    break
                }
            }
            return reply
        }
    }

    /// Waits until `fd` is ready for `events` (or has an error or hang-up) or `deadline` passes.
    private static func poll(_ fd: Int32, events: Int16, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let remaining = deadline - .now
            guard remaining > .zero else { return false }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1_000 + attoseconds / 1_000_000_000_000_000 + 1)
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let result = Glibc.poll(&entry, 1, milliseconds)
            if result > 0 { return true }
            if result < 0, errno != EINTR { return false }
        }
    }

    /// Runs a blocking body on a thread of its own and returns its result.
    private static func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    private func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await Self.offPool(body)
    }
}
