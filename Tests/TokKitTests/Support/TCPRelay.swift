#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import TokKit

/// A TCP relay on 127.0.0.1 between clients and an upstream port, whose connections a test can cut at will: the
/// network failure a reconnecting client must survive, without help from the server.
///
/// One named thread accepts; one per relayed connection pumps both directions with `poll`. `cutAll()` shuts every
/// relayed socket down (both ends see the connection die) while the relay keeps accepting new ones. Test helper.
final class TCPRelay: Sendable {
    enum RelayError: Error { case socket(String) }

    let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    private let open = Mutex<[Int32]>([])
    private let threads = Mutex<[MediaThread]>([])
    private let acceptThread = Mutex<MediaThread?>(nil)
    /// Connections accepted so far.
    var accepted: Int { acceptedCount.load(ordering: .relaxed) }
    private let acceptedCount = Atomic<Int>(0)
    private let frozenBelow = Atomic<Int>(0)

    init(upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RelayError.socket("socket: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw RelayError.socket("bind/listen: errno \(errno)")
        }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: addr.sin_port))
        let t = MediaThread(name: "relay-accept") { [self] thread in acceptLoop(thread) }
        acceptThread.withLock { $0 = t }
    }

    /// Makes every connection relayed so far pass nothing any more, while staying open (a silent network).
    /// Connections accepted later relay normally.
    func freezeExisting() {
        frozenBelow.store(acceptedCount.load(ordering: .relaxed), ordering: .relaxed)
    }

    /// Cuts every relayed connection now.
    func cutAll() {
        // Under the lock: a pump removes its sockets under it before closing them, so no number is reused here.
        open.withLock { fds in for fd in fds { shutdown(fd, Int32(SHUT_RDWR)) } }
    }

    /// Stops accepting, cuts everything and joins the threads.
    func stop() {
        acceptThread.withLock { $0 }?.stop()
        cutAll()
        for t in threads.withLock({ $0 }) { t.stop() }
        close(listener)
    }

    private func acceptLoop(_ thread: MediaThread) {
        while !thread.isStopping {
            var pfd = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 50) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var addr = Self.loopback(port: upstreamPort)
            let ok = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard ok == 0 else {
                close(client)
                close(upstream)
                continue
            }
            let index = acceptedCount.add(1, ordering: .relaxed).oldValue
            open.withLock { $0 += [client, upstream] }
            let pump = MediaThread(name: "relay-pump") { [self] t in self.pump(client, upstream, index: index, t) }
            threads.withLock { $0.append(pump) }
        }
    }

    private func pump(_ a: Int32, _ b: Int32, index: Int, _ thread: MediaThread) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var fds = [pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0)]
        loop: while !thread.isStopping {
            let frozen = index < frozenBelow.load(ordering: .relaxed)
            // Frozen: wait for nothing but a hang-up; read nothing, forward nothing.
            for i in 0..<2 { fds[i].events = frozen ? 0 : Int16(POLLIN) }
            guard poll(&fds, 2, 50) >= 0 else { break }
            if frozen {
                if fds.contains(where: { $0.revents != 0 }) { break }
                continue
            }
            for i in 0..<2 where fds[i].revents != 0 {
                let from = fds[i].fd, to = fds[1 - i].fd
                let n = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
                guard n > 0 else { break loop }
                var sent = 0
                while sent < n {
                    let w = buffer.withUnsafeBytes { send(to, $0.baseAddress! + sent, n - sent, Int32(MSG_NOSIGNAL)) }
                    guard w > 0 else { break loop }
                    sent += w
                }
            }
        }
        shutdown(a, Int32(SHUT_RDWR))
        shutdown(b, Int32(SHUT_RDWR))
        open.withLock { $0.removeAll { $0 == a || $0 == b } }
        close(a)
        close(b)
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        return addr
    }
}
