import Testing
@testable import TokKitMedia

@Suite struct VideoFramePoolTests {
    @Test func buffersReturnWhenFramesAreDropped() throws {
        let pool = VideoFramePool(capacity: 2)
        let format = VideoFormat.i420(width: 64, height: 48)
        var a: VideoFrame? = try pool.makeFrame(format: format)
        let b = try pool.makeFrame(format: format)
        #expect(pool.buffersInUse == 2)
        #expect(throws: VideoFrameError.poolExhausted(capacity: 2)) { _ = try pool.makeFrame(format: format) }
        let firstAddress = try a!.withPlanes { $0[0].baseAddress }
        a = nil
        #expect(pool.buffersInUse == 1)
        let c = try pool.makeFrame(format: format)
        #expect(try c.withPlanes { $0[0].baseAddress } == firstAddress, "the released buffer is reused")
        _ = b
    }

    @Test func aFreeBufferTooSmallIsReplaced() throws {
        let pool = VideoFramePool(capacity: 1)
        _ = try pool.makeFrame(format: .i420(width: 16, height: 16))
        let big = try pool.makeFrame(format: .i420(width: 640, height: 480))
        #expect(try big.withPlanes { $0[0].count } == 640 * 480)
        #expect(try big.withPlanes { $0[2].count } == 320 * 240)
    }

    @Test func planesAreAlignedAndDisjoint() throws {
        let frame = try VideoFramePool().makeFrame(format: .i420(width: 33, height: 17))
        try frame.withPlanes { p in
            for i in 0..<3 { #expect(Int(bitPattern: p[i].baseAddress!) % 64 == 0) }
            #expect(p[0].baseAddress! + p[0].count <= p[1].baseAddress!)
            #expect(p[1].baseAddress! + p[1].count <= p[2].baseAddress!)
        }
    }

    @Test func invalidFormatIsRejected() {
        #expect(throws: VideoFrameError.invalidDimensions(width: -1, height: 4)) {
            _ = try VideoFramePool().makeFrame(format: .i420(width: -1, height: 4))
        }
    }
}
