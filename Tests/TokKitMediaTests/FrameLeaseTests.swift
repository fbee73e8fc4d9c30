#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
@testable import TokKitMedia

@Suite struct FrameLeaseTests {
    static let format = VideoFormat.argb(width: 2, height: 2)

    /// An owner's 16-byte buffer, filled with `fill`.
    final class Buffer {
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 64)
        init(fill: UInt8) { bytes.initializeMemory(as: UInt8.self, repeating: fill) }
        func fill(_ value: UInt8) { bytes.initializeMemory(as: UInt8.self, repeating: value) }
        var readOnly: UnsafeRawBufferPointer { UnsafeRawBufferPointer(bytes) }
        deinit { bytes.deallocate() }
    }

    @Test func aFrameKeptPastItsLendingCallExpiresInsteadOfReadingReusedMemory() throws {
        let buffer = Buffer(fill: 1), lease = FrameLease(), pool = VideoFramePool(capacity: 1)
        var kept: VideoFrame?
        try lease.lend(format: Self.format, borrowing: buffer.readOnly) { frame in kept = frame }
        buffer.fill(2)  // the owner reuses its memory once the call returned
        let frame = try #require(kept)
        #expect(frame.isBorrowed)
        #expect(throws: VideoFrameError.expired) { try frame.withPlanes { Array($0[0]) } }
        #expect(throws: VideoFrameError.expired) { try frame.copy(using: pool) }
        #expect(pool.buffersInUse == 0, "a failed copy gives its pooled buffer back")
        struct Custom: Error, Equatable {}
        #expect(throws: Custom()) { try frame.withPlanes(ifExpired: Custom()) { (_) throws(Custom) in 0 } }
    }

    @Test func aFrameReadInsideItsLendingCallWorksAndItsCopyOutlivesIt() throws {
        let buffer = Buffer(fill: 7), lease = FrameLease(), pool = VideoFramePool(capacity: 1)
        let copy = try lease.lend(format: Self.format, borrowing: buffer.readOnly, timestamp: .seconds(3)) {
            (frame) throws(VideoFrameError) in
            #expect(try frame.withPlanes { $0[0].baseAddress } == buffer.readOnly.baseAddress, "no copy")
            #expect(try frame.withPlanes { Array($0[0]) } == [UInt8](repeating: 7, count: 16))
            return try frame.copy(using: pool)
        }
        buffer.fill(8)
        #expect(!copy.isBorrowed && copy.timestamp == .seconds(3))
        #expect(try copy.withPlanes { Array($0[0]) } == [UInt8](repeating: 7, count: 16))
    }

    @Test func eachLendingHasItsOwnGenerationAndOnlyTheCurrentOneReads() throws {
        let buffer = Buffer(fill: 1), lease = FrameLease()
        var first: VideoFrame?
        try lease.lend(format: Self.format, borrowing: buffer.readOnly) { first = $0 }
        buffer.fill(2)
        try lease.lend(format: Self.format, borrowing: buffer.readOnly) { (second) throws(VideoFrameError) in
            #expect(try second.withPlanes { $0[0][0] } == 2)
            #expect(throws: VideoFrameError.expired) { try first?.withPlanes { $0[0][0] } }
        }
        // A frame made with the initializer stays readable until the owner revokes, across calls.
        let third = try VideoFrame(format: Self.format, borrowing: buffer.readOnly, lease: lease)
        #expect(try third.withPlanes { $0[0][0] } == 2)
        #expect(try third.withPlanes { $0[0][15] } == 2)
        lease.revoke()
        #expect(throws: VideoFrameError.expired) { try third.withPlanes { $0[0][0] } }
    }

    @Test func invalidPlanesAreRejectedBeforeTheBodyRuns() {
        let buffer = Buffer(fill: 0), lease = FrameLease()
        var called = false
        #expect(throws: VideoFrameError.planeTooSmall(plane: 0, size: 8, minimum: 16)) {
            try lease.lend(format: Self.format, borrowing: UnsafeRawBufferPointer(rebasing: buffer.readOnly[0..<8])) { _ in
                called = true
            }
        }
        #expect(!called)
    }

    @Test func pooledFramesNeverExpire() throws {
        let buffer = Buffer(fill: 5), lease = FrameLease(), pool = VideoFramePool(capacity: 2)
        let made = try pool.makeFrame(format: Self.format)
        _ = made.withMutablePlanes { $0[0].initializeMemory(as: UInt8.self, repeating: 9) }
        let copied = try lease.lend(format: Self.format, borrowing: buffer.readOnly) { (frame) throws(VideoFrameError) in
            try frame.copy(using: pool)
        }
        for _ in 0..<1_000 { lease.revoke() }
        #expect(try made.withPlanes { Array($0[0]) } == [UInt8](repeating: 9, count: 16))
        #expect(try copied.withPlanes { Array($0[0]) } == [UInt8](repeating: 5, count: 16))
        #expect(!made.isBorrowed && !copied.isBorrowed)
    }

    @Test func aFrameOutlivesItsOwnerSafely() throws {
        var kept: VideoFrame?
        do {
            let buffer = Buffer(fill: 3), lease = FrameLease()
            try lease.lend(format: Self.format, borrowing: buffer.readOnly) { kept = $0 }
        }  // buffer freed, lease dropped by its owner (the frame still holds it)
        #expect(throws: VideoFrameError.expired) { try kept?.withPlanes { Array($0[0]) } }
    }

    // MARK: - Racing the revocation from another thread

    /// What the reader thread saw in one round.
    enum Outcome: Equatable {
        /// Every byte read had this value.
        case read(UInt8)
        /// Bytes of different values: memory rewritten under the read.
        case mixed
        case expired
        case timedOut
    }

    /// State shared by the owner (the test's thread) and the reader thread; one round at a time.
    final class Race: Sendable {
        let slot = Mutex<(round: Int, frame: VideoFrame)?>(nil)
        /// The last round in which the reader was inside `withPlanes` / took the frame / finished.
        let inside = Atomic<Int>(-1), taken = Atomic<Int>(-1), done = Atomic<Int>(-1)
        /// The last round the owner left the lending call for / rewrote the buffer after.
        let leaving = Atomic<Int>(-1), overwritten = Atomic<Int>(-1)
        let outcomes = Mutex<[Outcome]>([])
    }

    /// Spins (yielding) until `condition` holds; false after `seconds`.
    static func wait(seconds: Double = 10, until condition: () -> Bool) -> Bool {
        let deadline = MonotonicClock.now() + .seconds(seconds)
        while !condition() {
            if MonotonicClock.now() > deadline { return false }
            sched_yield()
        }
        return true
    }

    static func pattern(_ round: Int) -> UInt8 { UInt8(round % 100 + 1) }
    static func overwrite(_ round: Int) -> UInt8 { UInt8(round % 100 + 128) }

    static func classify(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        let first = bytes[0]
        return bytes.allSatisfy { $0 == first } ? .read(first) : .mixed
    }

    /// The owner lends a 64 KiB frame to a reader on another thread, then rewrites the buffer with a new pattern
    /// as soon as the lending call returns. Rounds of three kinds: the reader is inside `withPlanes` when the
    /// owner revokes (the read must finish on the old pattern: revocation waits for it); the reader copies only
    /// after the rewrite (it must get `.expired`); the reader copies while the owner revokes (either).
    @Test func aReaderRacingTheRevocationNeverSeesReusedMemory() throws {
        let format = VideoFormat.argb(width: 128, height: 128)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: format.minimumFrameSize, alignment: 64)
        defer { buffer.deallocate() }
        let lease = FrameLease(), race = Race()
        let rounds = 600

        let reader = MediaThread(name: "tk-lease-test") { thread in
            let pool = VideoFramePool(capacity: 1)
            for round in 0..<rounds where !thread.isStopping {
                var frame: VideoFrame?
                guard Self.wait(until: {
                    frame = race.slot.withLock { $0?.round == round ? $0?.frame : nil }
                    return frame != nil || thread.isStopping
                }), let frame else { break }
                let outcome: Outcome
                switch round % 3 {
                case 0:
                    // Enter, let the owner leave its call and start revoking, and only then read.
                    outcome = (try? frame.withPlanes { planes in
                        race.inside.store(round, ordering: .releasing)
                        guard Self.wait(until: { race.leaving.load(ordering: .acquiring) >= round }) else { return .timedOut }
                        usleep(200)
                        return Self.classify(planes[0])
                    }) ?? .expired
                case 1:
                    // Only after the owner has rewritten the buffer.
                    guard Self.wait(until: { race.overwritten.load(ordering: .acquiring) >= round }) else {
                        outcome = .timedOut
                        break
                    }
                    outcome = Self.read(frame, pool)
                default:
                    race.taken.store(round, ordering: .releasing)
                    // A varying head start for the owner, so that some copies begin before the revocation,
                    // some during it and some after it.
                    var spin = 0
                    for i in 0..<((round * 37) % 20_000) { spin &+= i }
                    Self.blackHole(spin)
                    outcome = Self.read(frame, pool)
                }
                race.outcomes.withLock { $0.append(outcome) }
                race.done.store(round, ordering: .releasing)
            }
        }
        defer { reader.stop() }

        for round in 0..<rounds {
            buffer.initializeMemory(as: UInt8.self, repeating: Self.pattern(round))
            try lease.lend(format: format, borrowing: UnsafeRawBufferPointer(buffer)) { frame in
                race.slot.withLock { $0 = (round, frame) }
                switch round % 3 {
                case 0: _ = Self.wait { race.inside.load(ordering: .acquiring) >= round }
                case 2: _ = Self.wait { race.taken.load(ordering: .acquiring) >= round }
                default: break
                }
                race.leaving.store(round, ordering: .releasing)
            }
            buffer.initializeMemory(as: UInt8.self, repeating: Self.overwrite(round))
            race.overwritten.store(round, ordering: .releasing)
            try #require(Self.wait { race.done.load(ordering: .acquiring) >= round }, "reader stuck in round \(round)")
        }

        let outcomes = race.outcomes.withLock { $0 }
        try #require(outcomes.count == rounds)
        var raced = (read: 0, expired: 0)
        for (round, outcome) in outcomes.enumerated() {
            switch round % 3 {
            case 0: #expect(outcome == .read(Self.pattern(round)), "round \(round): read inside the revocation")
            case 1: #expect(outcome == .expired, "round \(round): read after the rewrite")
            default:
                #expect(outcome == .read(Self.pattern(round)) || outcome == .expired, "round \(round): racing read")
                if outcome == .expired { raced.expired += 1 } else { raced.read += 1 }
            }
        }
        // Not asserted (scheduling decides), but worth seeing: both outcomes normally occur.
        print("racing reads: \(raced.read) read the lent pattern, \(raced.expired) expired")
    }

    /// Keeps the optimizer from removing a loop whose result nobody reads.
    @inline(never)
    static func blackHole(_ value: Int) { _ = value }

    /// A pooled copy of `frame`, classified.
    static func read(_ frame: VideoFrame, _ pool: VideoFramePool) -> Outcome {
        do {
            let copy = try frame.copy(using: pool)
            return try copy.withPlanes { classify($0[0]) }
        } catch {
            return error == .expired ? .expired : .timedOut
        }
    }
}
