import Testing
import TokKitMedia
@testable import TokKitArchiving

/// Drawing pictures into the composed canvas: black background, libyuv scaling into a sub-rectangle.
@Suite struct CanvasCompositorTests {
    static func solid(width: Int, height: Int, y: UInt8, u: UInt8, v: UInt8) throws -> VideoFrame {
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        return try VideoFrame(format: .i420(width: width, height: height),
                              copying: [[UInt8](repeating: y, count: width * height),
                                        [UInt8](repeating: u, count: cw * ch), [UInt8](repeating: v, count: cw * ch)])
    }

    static func plane(_ frame: VideoFrame, _ i: Int) throws -> [UInt8] {
        try frame.withPlanes { p in [UInt8](p[i]) }
    }

    @Test func clearsToBlackAndScalesAPictureIntoItsRectangleOnly() throws {
        let pool = VideoFramePool(capacity: 1)
        let canvas = try pool.makeFrame(format: .i420(width: 64, height: 48))
        try CanvasCompositor.clear(canvas)
        #expect(try Self.plane(canvas, 0).allSatisfy { $0 == 16 })
        #expect(try Self.plane(canvas, 1).allSatisfy { $0 == 128 } && Self.plane(canvas, 2).allSatisfy { $0 == 128 })

        let picture = try Self.solid(width: 8, height: 6, y: 200, u: 50, v: 60)
        let rect = CanvasRect(x: 16, y: 8, width: 32, height: 24)
        try CanvasCompositor.draw(picture, into: canvas, at: rect)
        let y = try Self.plane(canvas, 0), u = try Self.plane(canvas, 1), v = try Self.plane(canvas, 2)
        for row in 0..<48 {
            for column in 0..<64 {
                let expected: UInt8 = rect.contains(x: column, y: row) ? 200 : 16
                #expect(y[row * 64 + column] == expected, "luma at \(column),\(row)")
            }
        }
        for row in 0..<24 {
            for column in 0..<32 {
                let inside = rect.contains(x: column * 2, y: row * 2)
                #expect(u[row * 32 + column] == (inside ? 50 : 128) && v[row * 32 + column] == (inside ? 60 : 128),
                        "chroma at \(column),\(row)")
            }
        }
    }

    @Test func refusesRectanglesOutsideOrOddAndOtherFormats() throws {
        let canvas = try VideoFramePool(capacity: 1).makeFrame(format: .i420(width: 64, height: 48))
        let picture = try Self.solid(width: 8, height: 8, y: 1, u: 2, v: 3)
        for rect in [CanvasRect(x: 1, y: 0, width: 8, height: 8), CanvasRect(x: 0, y: 0, width: 7, height: 8),
                     CanvasRect(x: 60, y: 0, width: 8, height: 8), CanvasRect(x: 0, y: -2, width: 8, height: 8),
                     CanvasRect(x: 0, y: 0, width: 0, height: 0)] {
            #expect(throws: VideoFrameError.invalidDimensions(width: rect.width, height: rect.height)) {
                try CanvasCompositor.draw(picture, into: canvas, at: rect)
            }
        }
        let argb = try VideoFramePool(capacity: 1).makeFrame(format: .argb(width: 8, height: 8))
        #expect(throws: VideoFrameError.unsupportedConversion(from: .argb, to: .i420)) {
            try CanvasCompositor.draw(argb, into: canvas, at: CanvasRect(x: 0, y: 0, width: 8, height: 8))
        }
        #expect(throws: VideoFrameError.unsupportedConversion(from: .argb, to: .i420)) { try CanvasCompositor.clear(argb) }
        #expect(try Self.plane(canvas, 0).count == 64 * 48)
    }
}
