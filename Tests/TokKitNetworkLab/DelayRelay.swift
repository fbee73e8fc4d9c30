import Foundation

/// The lab's delay line: this kernel has no netem, so a delayable host's link to the router passes through a
/// namespace of its own where a small userspace relay (Python's standard library, AF_PACKET sockets on two veth
/// ends) forwards every Ethernet frame after a one-way delay plus a uniform jitter, in order in each direction
/// (a frame never overtakes the one before it, as on a real link). It reads new settings, `DELAY_MS JITTER_MS`,
/// one line at a time on stdin; it starts with none (a plain forwarder, about 0.1 ms).
enum DelayRelay {
    static let python = "/usr/bin/python3"

    static let script = #"""
import heapq, os, random, select, socket, sys, time
a_if, b_if = sys.argv[1], sys.argv[2]
ETH_P_ALL = 3
def open_raw(name):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((name, 0)); s.setblocking(False)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    return s
a, b = open_raw(a_if), open_raw(b_if)
peer = {a: b, b: a}
delay = jitter = 0.0
queues = {a: [], b: []}       # frames to send OUT of this socket: (due, seq, frame)
last_due = {a: 0.0, b: 0.0}
seq = 0
print("ready", flush=True)
stdin = sys.stdin.fileno()
while True:
    now = time.monotonic()
    due = [q[0][0] for q in queues.values() if q]
    timeout = max(0.0, min(due) - now) if due else 0.5
    readable, _, _ = select.select([a, b, stdin], [], [], timeout)
    for s in readable:
        if s == stdin:
            line = os.read(stdin, 256).decode().split()
            if not line: sys.exit(0)
            delay, jitter = float(line[0]) / 1000, float(line[1]) / 1000
            continue
        while True:
            try: frame, addr = s.recvfrom(65535)
            except BlockingIOError: break
            if addr[2] == socket.PACKET_OUTGOING: continue
            out = peer[s]
            t = time.monotonic() + max(0.0, delay + random.uniform(-jitter, jitter))
            t = max(t, last_due[out]); last_due[out] = t
            seq += 1
            heapq.heappush(queues[out], (t, seq, frame))
    now = time.monotonic()
    for out, q in queues.items():
        while q and q[0][0] <= now:
            _, _, frame = heapq.heappop(q)
            try: out.send(frame)
            except OSError: pass
"""#

    /// Turns off transmit checksum offload, TSO and GSO on the interfaces named (SIOCETHTOOL; no ethtool
    /// needed). The frames a veth sends otherwise carry unfinished checksums, or are 64 KB TCP super-frames,
    /// which a relay that re-sends them as they are would turn into drops.
    static let offloadScript = #"""
import ctypes, fcntl, socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for name in sys.argv[1:]:
    for cmd in (0x17, 0x1f, 0x24):  # ETHTOOL_STXCSUM, ETHTOOL_STSO, ETHTOOL_SGSO
        value = ctypes.create_string_buffer(struct.pack("II", cmd, 0))
        fcntl.ioctl(s, 0x8946, struct.pack("16sQ", name.encode(), ctypes.addressof(value)) + bytes(16))
"""#

    static let offloadPath: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tokkit-lab-offload-\(getpid()).py")
            .path
        _ = FileManager.default.createFile(atPath: path, contents: Data(offloadScript.utf8))
        return path
    }()

    /// The script, written once per test process.
    static let path: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tokkit-lab-delay-\(getpid()).py").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(script.utf8))
        return path
    }()
}
