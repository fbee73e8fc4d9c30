import Testing
@testable import TokKitMedia

@Suite struct VideoFrameTests {
    @Test func borrowedFrameRejectsShortPlanesWithoutReading() {
        let format = VideoFormat.i420(width: 4, height: 4)
        let y = [UInt8](repeating: 0, count: 16), u = [UInt8](repeating: 0, count: 3), v = [UInt8](repeating: 0, count: 4)
        let lease = FrameLease()
        y.withUnsafeBytes { yb in
            u.withUnsafeBytes { ub in
                v.withUnsafeBytes { vb in
                    #expect(throws: VideoFrameError.planeTooSmall(plane: 1, size: 3, minimum: 4)) {
                        _ = try VideoFrame(format: format, borrowing: yb, ub, vb, lease: lease)
                    }
                    #expect(throws: VideoFrameError.wrongPlaneCount(expected: 3, actual: 2)) {
                        _ = try VideoFrame(format: format, borrowing: yb, ub, lease: lease)
                    }
                }
            }
        }
    }

    @Test func borrowedFrameWrapsWithoutCopyAndCopyOwnsItsMemory() throws {
        var pixels = [UInt8](repeating: 7, count: 4 * 2 * 2)
        let pool = VideoFramePool(capacity: 2)
        let kept: VideoFrame = try pixels.withUnsafeBytes { raw in
            try FrameLease().lend(format: .argb(width: 2, height: 2), borrowing: raw, timestamp: .seconds(3)) {
                (borrowed) throws(VideoFrameError) in
                #expect(borrowed.isBorrowed)
                #expect(try borrowed.withPlanes { $0[0].baseAddress } == raw.baseAddress)
                return try borrowed.copy(using: pool)
            }
        }
        pixels[0] = 99
        #expect(!kept.isBorrowed)
        #expect(kept.timestamp == .seconds(3))
        #expect(try kept.withPlanes { Array($0[0]) } == [UInt8](repeating: 7, count: 16))
    }

    @Test func copyingInitializerValidatesAndCopies() throws {
        let frame = try VideoFrame(format: .nv12(width: 2, height: 2), copying: [[1, 2, 3, 4], [5, 6]])
        #expect(try frame.withPlanes { ($0.count, Array($0[0]), Array($0[1])) } == (2, [1, 2, 3, 4], [5, 6]))
        #expect(throws: VideoFrameError.planeTooSmall(plane: 0, size: 3, minimum: 4)) {
            _ = try VideoFrame(format: .nv12(width: 2, height: 2), copying: [[1, 2, 3], [5, 6]])
        }
    }

    @Test func paddedStridesAreHonoured() throws {
        // 2x2 ARGB with 12-byte rows (4 bytes of padding each).
        let format = VideoFormat(pixelFormat: .argb, width: 2, height: 2, bytesPerRow: [12])
        #expect(throws: VideoFrameError.planeTooSmall(plane: 0, size: 20, minimum: 24)) {
            _ = try VideoFrame(format: format, copying: [[UInt8](repeating: 0, count: 20)])
        }
        let frame = try VideoFrame(format: format, copying: [[UInt8](repeating: 1, count: 24)])
        #expect(frame.format.minimumSize(ofPlane: 0) == 24)
    }

    @Test func metadataIsLimitedTo32Bytes() throws {
        var frame = try VideoFrame(format: .argb(width: 1, height: 1), copying: [[0, 0, 0, 0]])
        try frame.setMetadata(Array(repeating: 1, count: 32))
        #expect(frame.metadata?.count == 32)
        #expect(throws: VideoFrameError.metadataTooLarge(size: 33)) { try frame.setMetadata(Array(repeating: 1, count: 33)) }
        #expect(frame.metadata?.count == 32)
    }
}
