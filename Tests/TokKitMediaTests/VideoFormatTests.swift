import Testing
@testable import TokKitMedia

@Suite struct VideoFormatTests {
    @Test func tightStridesPerPixelFormat() {
        #expect(VideoFormat.i420(width: 641, height: 481).bytesPerRow == [641, 321, 321])
        #expect(VideoFormat.nv12(width: 641, height: 481).bytesPerRow == [641, 642])
        #expect(VideoFormat.argb(width: 640, height: 480).bytesPerRow == [2560])
        #expect(VideoFormat(pixelFormat: .yuy2, width: 641, height: 2).bytesPerRow == [1284])
        #expect(VideoFormat(pixelFormat: .mjpeg, width: 64, height: 2).bytesPerRow.isEmpty)
    }

    @Test func minimumSizesCountChromaRowsRoundedUp() {
        let f = VideoFormat.i420(width: 5, height: 5)
        #expect(f.minimumSize(ofPlane: 0) == 25)
        #expect(f.minimumSize(ofPlane: 1) == 9)
        #expect(f.minimumFrameSize == 43)
    }

    @Test func validateRejectsBadShapes() {
        #expect(throws: VideoFrameError.invalidDimensions(width: 0, height: 10)) {
            try VideoFormat.i420(width: 0, height: 10).validate()
        }
        #expect(throws: VideoFrameError.wrongPlaneCount(expected: 3, actual: 2)) {
            try VideoFormat(pixelFormat: .i420, width: 4, height: 4, bytesPerRow: [4, 2]).validate()
        }
        #expect(throws: VideoFrameError.strideTooSmall(plane: 0, stride: 10, minimum: 16)) {
            try VideoFormat(pixelFormat: .argb, width: 4, height: 4, bytesPerRow: [10]).validate()
        }
        #expect(throws: Never.self) {
            try VideoFormat(pixelFormat: .argb, width: 4, height: 4, bytesPerRow: [32]).validate()
        }
    }
}
