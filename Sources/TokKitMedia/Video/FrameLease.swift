#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Lends memory its owner keeps (a capturer's buffer, a decoder's picture) as borrowed ``VideoFrame``s, and takes
/// it back: once the lease is revoked, no frame lent under it can read that memory any more.
///
/// One lease per owner (capturer, decoder, file reader), made once and used for every frame: lending allocates
/// nothing and takes no lock. The lease holds one atomic word, a *generation* and a count of readers:
/// - a borrowed frame records the generation it was lent under;
/// - every read of its memory (``VideoFrame/withPlanes(_:)``, ``VideoFrame/copy(using:)`` and what is built on
///   them) enters the lease first: if the generation has moved on, the read fails with
///   ``VideoFrameError/expired`` and touches nothing; otherwise the reader is counted until its read returns;
/// - ``revoke()`` moves to the next generation (every frame lent so far expires) and returns once the readers
///   already inside a read of an old frame have left, so the owner may then rewrite or free the memory.
///
/// Lend scoped where the frame is only handed to one call:
/// ```swift
/// try lease.lend(format: format, borrowing: pixels) { frame in consumer.consumeFrame(frame) }
/// // here every frame lent above is revoked: the buffer may be refilled
/// ```
/// An owner whose frame must outlive a call (``VideoFrame/init(format:borrowing:_:_:lease:timestamp:orientation:)``,
/// as `Y4MReader` keeps its last frame) calls ``revoke()`` itself before it touches the memory again, and before
/// freeing it.
///
/// Thread-safe. Reads of lent frames are scoped and short, so ``revoke()`` normally returns at once; it spins,
/// then yields, while a reader on another thread finishes. Never call ``revoke()`` (or ``lend(format:borrowing:_:_:timestamp:orientation:to:)``)
/// from inside a read of a frame lent under the same lease: it would wait for itself.
public final class FrameLease: Sendable {
    /// `generation << readerBits | readers`: the generation in the high 56 bits (wraps after 2^56 revocations,
    /// more than two years of revoking every nanosecond), the readers inside a read in the low 8.
    private let state = Atomic<UInt64>(0)

    private static let readerBits: UInt64 = 8
    private static let readerMask: UInt64 = (1 << readerBits) - 1
    private static let generationStep: UInt64 = 1 << readerBits

    /// A lease at its first generation, with nothing lent.
    public init() {}

    /// Lends `body` a borrowed frame over the given planes, then revokes it.
    ///
    /// The frame is readable only until `body` returns: a copy kept by anyone fails every later read with
    /// ``VideoFrameError/expired``. When this returns (or throws), no reader is inside the memory any more and
    /// the caller may rewrite or free it. Allocates nothing.
    ///
    /// - Parameters:
    ///   - format: the layout of the planes; each plane must hold at least what it demands.
    ///   - plane0: the first plane (Y, or the packed pixels, or the compressed bytes).
    ///   - plane1: the second plane, when the format has one.
    ///   - plane2: the third plane, when the format has one.
    ///   - timestamp: capture time on the monotonic clock.
    ///   - orientation: how the image must be rotated to be upright.
    ///   - body: receives the frame; it may hand it on, but nobody can read it once `body` has returned.
    /// - Returns: what `body` returns.
    /// - Throws: ``VideoFrameError`` if the format or planes are invalid (nothing is read and `body` is not
    ///   called), or what `body` throws.
    public func lend<R>(
        format: VideoFormat, borrowing plane0: UnsafeRawBufferPointer, _ plane1: UnsafeRawBufferPointer? = nil,
        _ plane2: UnsafeRawBufferPointer? = nil, timestamp: Duration = MonotonicClock.now(),
        orientation: VideoOrientation = .up, to body: (VideoFrame) throws(VideoFrameError) -> R
    ) throws(VideoFrameError) -> R {
        let frame = try VideoFrame(
            format: format, borrowing: plane0, plane1, plane2, lease: self, timestamp: timestamp, orientation: orientation)
        defer { revoke() }
        return try body(frame)
    }

    /// Expires every frame lent so far, then waits until no reader is inside one of them.
    ///
    /// When it returns, the memory those frames borrowed may be rewritten or freed: a read that started before
    /// has finished, and every later one fails with ``VideoFrameError/expired``. Frames lent afterwards are
    /// readable until the next revocation. Allocates nothing; takes no lock.
    public func revoke() {
        var word = state.wrappingAdd(Self.generationStep, ordering: .acquiringAndReleasing).newValue
        var rounds = 0
        while word & Self.readerMask != 0 {
            Self.pause(&rounds)
            word = state.load(ordering: .acquiring)
        }
    }

    /// The generation frames lent now carry (the state word without its reader count).
    ///
    /// Read by the owner, which alone revokes, so its own program order is all the ordering needed.
    var generation: UInt64 { state.load(ordering: .relaxed) & ~Self.readerMask }

    /// Starts a read of a frame lent under `generation`: `false` (and nothing counted) if it was revoked since.
    /// A `true` must be followed by exactly one ``leave()`` when the read is over.
    @inline(__always)
    func enter(_ generation: UInt64) -> Bool {
        var word = state.load(ordering: .relaxed)
        var rounds = 0
        while word & ~Self.readerMask == generation {
            if word & Self.readerMask == Self.readerMask {
                // 255 readers inside at once: wait for one to leave rather than overflow into the generation.
                Self.pause(&rounds)
                word = state.load(ordering: .relaxed)
                continue
            }
            // Acquiring: the read of the frame's memory cannot start before the reader is counted. A revocation
            // ordered before this exchange changed the word, so the exchange fails and the loop sees the new
            // generation; one ordered after it finds this reader counted and waits for ``leave()``.
            let (exchanged, original) = state.weakCompareExchange(
                expected: word, desired: word + 1, successOrdering: .acquiring, failureOrdering: .relaxed)
            if exchanged { return true }
            word = original
        }
        return false
    }

    /// Ends a read started by a successful ``enter(_:)``. Releasing: everything the read did happens before a
    /// ``revoke()`` that sees the reader gone returns.
    @inline(__always)
    func leave() {
        state.wrappingSubtract(1, ordering: .releasing)
    }

    /// Spins first (reads are short), then yields the processor, then sleeps briefly (a reader that was
    /// descheduled, or does real work inside its read).
    private static func pause(_ rounds: inout Int) {
        rounds += 1
        if rounds < 100 { return }
        if rounds < 1_100 {
            sched_yield()
        } else {
            usleep(50)
        }
    }
}
