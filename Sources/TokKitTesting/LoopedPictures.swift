import Synchronization
import TokKitMedia

/// A ``PacedFrameSource`` lending precomputed grey pictures: `count` luma planes of one size, drawn once by
/// ``prepare(format:count:draw:)``, with one neutral chroma plane (128) shared by all. Each tick asks its `pick`
/// which picture to lend and with which timestamp, or to skip the tick; nothing is allocated per frame.
///
/// The test sources ``PatternCapturer`` (one picture), ``FlashBeepCapturer`` (two, chosen by the schedule) and
/// numbered-pattern capturers (a loop) are this source with their own pictures and pick.
public final class LoopedPictures: PacedFrameSource {
    /// Which picture tick `tick` (0, 1, 2, … since the capture thread started) shows, taken modulo the count, and
    /// its timestamp (nil: now); nil skips the tick. Called on the capture thread.
    public typealias Pick = @Sendable (_ tick: Int) -> (picture: Int, timestamp: Duration?)?

    private let pick: Pick
    private let storage = Mutex<Storage?>(nil)

    /// A source showing what `pick` chooses (by default picture `tick`, stamped now).
    public init(pick: @escaping Pick = { ($0, nil) }) {
        self.pick = pick
    }

    /// Allocates `count` pictures of I420 `format` (even width and height) and fills each luma plane with `draw`
    /// (picture index, plane of `format.width * format.height` bytes, rows packed). Replaces what was prepared
    /// before; call it when no capture thread runs (``VideoCapture/initCapture()``).
    public func prepare(format: VideoFormat, count: Int,
                        draw: (_ picture: Int, _ luma: UnsafeMutableRawBufferPointer) -> Void) {
        storage.withLock { storage in
            let pictures = Storage(format: format.tight, count: max(1, count))
            for n in 0..<pictures.count { draw(n, pictures.luma(n)) }
            storage = pictures
        }
    }

    /// Whether pictures are prepared (and not freed).
    public var isPrepared: Bool { storage.withLock { $0 != nil } }

    /// Lends the picture `pick` chooses for this tick; ends once freed.
    public func deliverFrame(to consumer: (any VideoCaptureConsumer)?) -> PacedFrameResult {
        guard let consumer else { return .ended }
        return storage.withLock { storage in
            guard let storage else { return .ended }
            defer { storage.ticks += 1 }
            guard let (picture, timestamp) = pick(storage.ticks) else { return .skipped }
            let chroma = UnsafeRawBufferPointer(storage.chroma)
            do {
                try storage.lease.lend(format: storage.format, borrowing: UnsafeRawBufferPointer(storage.luma(picture)),
                                       chroma, chroma, timestamp: timestamp ?? MonotonicClock.now()) {
                    consumer.consumeFrame($0)
                }
            } catch {
                return .ended
            }
            return .delivered
        }
    }

    /// Frees the pictures.
    public func free() { storage.withLock { $0 = nil } }

    /// The pictures' memory: luma planes back to back, one neutral chroma plane; used under the source's lock.
    private final class Storage {
        let format: VideoFormat
        let count: Int
        let lumaSize: Int
        let planes: UnsafeMutableRawBufferPointer
        let chroma: UnsafeMutableRawBufferPointer
        let lease = FrameLease()
        var ticks = 0

        init(format: VideoFormat, count: Int) {
            self.format = format
            self.count = count
            lumaSize = format.width * format.height
            planes = .allocate(byteCount: lumaSize * count, alignment: 64)
            _ = planes.initializeMemory(as: UInt8.self, repeating: 0)
            chroma = .allocate(byteCount: (format.width / 2) * (format.height / 2), alignment: 64)
            _ = chroma.initializeMemory(as: UInt8.self, repeating: 128)
        }

        func luma(_ picture: Int) -> UnsafeMutableRawBufferPointer {
            let n = picture % count
            return UnsafeMutableRawBufferPointer(rebasing: planes[(n * lumaSize)..<((n + 1) * lumaSize)])
        }

        deinit {
            planes.deallocate()
            chroma.deallocate()
        }
    }
}
