#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import TokKitMedia

/// Polls `condition` every 2 ms until it holds or `timeout` passes; returns whether it held. Bounded in time.
func poll(timeout: Duration = .seconds(10), _ condition: () -> Bool) -> Bool {
    let deadline = MonotonicClock.now() + timeout
    while MonotonicClock.now() < deadline {
        if condition() { return true }
        usleep(2_000)
    }
    return condition()
}

/// A bus for tests: records the first `captureLimit` captured samples and serves `renderSource` to the render
/// side, then silence. Counts calls on both sides.
final class RecordingBus: AudioBus {
    private struct State {
        var captured: [Int16] = []
        var captureCalls = 0
        var renderCalls = 0
        var renderPosition = 0
    }
    private let state = Mutex(State())
    let captureLimit: Int
    let renderSource: [Int16]
    let channels: Int

    init(captureLimit: Int = 0, renderSource: [Int16] = [], channels: Int = 1) {
        self.captureLimit = captureLimit
        self.renderSource = renderSource
        self.channels = channels
    }

    func writeCaptureData(_ samples: UnsafeBufferPointer<Int16>) {
        state.withLock { s in
            s.captureCalls += 1
            let room = captureLimit - s.captured.count
            if room > 0 { s.captured += samples.prefix(room) }
        }
    }

    func readRenderData(_ buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        state.withLock { s in
            s.renderCalls += 1
            let n = max(0, min(buffer.count, renderSource.count - s.renderPosition))
            for i in 0..<buffer.count { buffer[i] = i < n ? renderSource[s.renderPosition + i] : 0 }
            s.renderPosition += n
            return n / channels
        }
    }

    var captured: [Int16] { state.withLock { $0.captured } }
    var captureCalls: Int { state.withLock { $0.captureCalls } }
    var renderCalls: Int { state.withLock { $0.renderCalls } }
}

/// A deterministic, recognisable sample sequence (never all zeros).
func pattern(count: Int, seed: Int = 0) -> [Int16] {
    (0..<count).map { Int16(truncatingIfNeeded: ($0 &+ seed) &* 7919 &+ 13) }
}

/// A fresh directory under /tmp, removed with its files on deinit.
final class TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/tokkit-audio-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { fatalError("mkdtemp failed: errno \(errno)") }
        path = String(cString: made)
    }

    func file(_ name: String) -> String { "\(path)/\(name)" }

    deinit {
        if let dir = opendir(path) {
            while let entry = readdir(dir) {
                // In place, up to the NUL (copying the 256-byte field reads past a short last record).
                let name = String(cString: UnsafeRawPointer(entry)
                    .advanced(by: MemoryLayout<dirent>.offset(of: \dirent.d_name)!).assumingMemoryBound(to: CChar.self))
                if name != "." && name != ".." { unlink(file(name)) }
            }
            closedir(dir)
        }
        rmdir(path)
    }
}

/// Whole-file I/O for tests.
func readBytes(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        out += chunk[0..<n]
    }
    return out
}

func writeBytes(_ path: String, _ bytes: [UInt8]) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    precondition(fd >= 0, "cannot create \(path)")
    defer { close(fd) }
    let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    precondition(n == bytes.count, "short write to \(path)")
}

func bytes(of samples: [Int16]) -> [UInt8] { samples.withUnsafeBytes { Array($0) } }

func samples(of bytes: some Collection<UInt8>) -> [Int16] {
    let a = Array(bytes)
    return (0..<a.count / 2).map { Int16(bitPattern: UInt16(a[2 * $0]) | UInt16(a[2 * $0 + 1]) << 8) }
}
