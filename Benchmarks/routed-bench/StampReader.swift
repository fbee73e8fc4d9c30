import Synchronization
import TokKitMedia

/// A subscriber's renderer: reads the picture number of the publisher's `NumberedPatternCapturer` pattern back from
/// each rendered frame (the blocks of ``RecordingTestMedia``'s top band, scaled to the received size, so any simulcast layer
/// reads) and keeps `(number, render time)` pairs until ``drain()`` takes them, in storage reserved up front.
///
/// Called on the subscriber's decode thread; ``drain()`` and ``firstFrame`` from any thread.
final class StampReader: VideoRender {
    /// RecordingTestMedia's layout: bit k is the 32x32 block at x = 32k in the top 32 rows (235 for 1, 16 for 0).
    static let block = 32
    static let bits = 16

    /// The largest number a source `sourceWidth` wide can show, plus one.
    static func maximumNumber(sourceWidth: Int) -> Int { 1 << min(bits, sourceWidth / block) }

    struct Rendered: Sendable {
        var number: Int
        var at: Duration
    }

    let sourceWidth: Int
    let sourceHeight: Int
    private struct State {
        var pending: [Rendered] = []
        var first: Duration?
        var dropped = 0
    }
    private let state: Mutex<State>
    private static let capacity = 4_096

    init(sourceWidth: Int, sourceHeight: Int) {
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        var initial = State()
        initial.pending.reserveCapacity(Self.capacity)
        state = Mutex(initial)
    }

    /// When the first frame was rendered.
    var firstFrame: Duration? { state.withLock { $0.first } }

    func renderVideoFrame(_ frame: VideoFrame) {
        let now = MonotonicClock.now()
        let format = frame.format
        guard format.pixelFormat == .i420 || format.pixelFormat == .nv12, format.width > 0, format.height > 0 else { return }
        let (sourceWidth, sourceHeight) = (self.sourceWidth, self.sourceHeight)
        let number = try? frame.withPlanes { planes in
            Self.number(in: planes[0], stride: format.bytesPerRow[0], width: format.width, height: format.height,
                        sourceWidth: sourceWidth, sourceHeight: sourceHeight)
        }
        state.withLock { s in
            if s.first == nil { s.first = now }
            if let number, s.pending.count < Self.capacity {
                s.pending.append(Rendered(number: number, at: now))
            } else {
                s.dropped += 1
            }
        }
    }

    /// The pairs since the last call, and how many frames could not be recorded.
    func drain() -> (rendered: [Rendered], dropped: Int) {
        state.withLock { s in
            defer {
                s.pending.removeAll(keepingCapacity: true)
                s.dropped = 0
            }
            return (s.pending, s.dropped)
        }
    }

    /// The number in a luma plane of a picture scaled from `sourceWidth` x `sourceHeight` to `width` x `height`
    /// (each block judged by its centre pixel).
    static func number(in plane: UnsafeRawBufferPointer, stride: Int, width: Int, height: Int,
                       sourceWidth: Int, sourceHeight: Int) -> Int? {
        let y = (block / 2) * height / sourceHeight
        var value = 0
        for bit in 0..<bits where (bit + 1) * block <= sourceWidth {
            let x = (bit * block + block / 2) * width / sourceWidth
            let i = y * stride + x
            guard i < plane.count else { return nil }
            if plane[i] > 128 { value |= 1 << bit }
        }
        return value
    }
}
