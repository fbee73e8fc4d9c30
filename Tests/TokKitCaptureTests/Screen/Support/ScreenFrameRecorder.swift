#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import TokKitCapture

/// A counting ``VideoCaptureConsumer`` that keeps a private copy of the newest frame, how the frames arrived
/// (borrowed or not, on which thread) and every error reported. Thread-safe.
final class ScreenFrameRecorder: VideoCaptureConsumer {
    struct Record {
        var count = 0
        var last: VideoFrame?
        var lastTimestamp: Duration?
        var timestampsIncrease = true
        var allBorrowed = true
        var threadNames: Set<String> = []
        var errors: [VideoCaptureError] = []
    }

    private let pool = VideoFramePool(capacity: 2)
    private let state = Mutex(Record())

    var record: Record { state.withLock { $0 } }
    var count: Int { record.count }
    var last: VideoFrame? { record.last }
    var errors: [VideoCaptureError] { record.errors }

    func consumeFrame(_ frame: VideoFrame) {
        let thread = Self.currentThreadName()
        let copy = try? frame.copy(using: pool)
        state.withLock { r in
            r.count += 1
            r.last = copy
            if let previous = r.lastTimestamp, frame.timestamp <= previous { r.timestampsIncrease = false }
            r.lastTimestamp = frame.timestamp
            r.allBorrowed = r.allBorrowed && frame.isBorrowed
            r.threadNames.insert(thread)
        }
    }

    func captureDidFail(_ error: VideoCaptureError) {
        state.withLock { $0.errors.append(error) }
    }

    /// Waits (bounded) for a frame, newer than `after` frames, that satisfies `condition`.
    func waitForFrame(after: Int = 0, timeout: Duration = .seconds(10), where condition: (VideoFrame) -> Bool = { _ in true })
        -> VideoFrame?
    {
        var found: VideoFrame?
        XvfbServer.waitUntil(timeout: timeout) {
            let r = record
            guard r.count > after, let frame = r.last, condition(frame) else { return false }
            found = frame
            return true
        }
        return found
    }

    private static func currentThreadName() -> String {
        let fd = open("/proc/thread-self/comm", O_RDONLY)
        guard fd >= 0 else { return "?" }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return String(decoding: buffer.prefix(max(0, n)), as: UTF8.self).trimmingTrailingNewline()
    }
}

extension String {
    fileprivate func trimmingTrailingNewline() -> String { hasSuffix("\n") ? String(dropLast()) : self }
}

extension VideoFrame {
    /// The 0xRRGGBB colour of the ARGB pixel at (`x`, `y`), or `nil` outside the frame (or when it expired).
    func rgb(x: Int, y: Int) -> UInt? {
        guard format.pixelFormat == .argb, x >= 0, y >= 0, x < format.width, y < format.height else { return nil }
        return try? withPlanes { planes in
            UInt(planes[0].load(fromByteOffset: y * format.bytesPerRow[0] + x * 4, as: UInt32.self) & 0xFF_FFFF)
        }
    }
}
