import CX11
import Testing
@testable import TokKitCapture

/// The thin Xlib wrapper against a real Xvfb: errors come back typed instead of ending the process.
@Suite struct X11ConnectionTests {
    @Test func rootGeometryAndVisual() throws {
        let x = try XvfbServer(width: 64, height: 48)
        defer { x.stop() }
        let c = try X11Connection(name: x.display)
        let g = try c.geometry(of: c.root)
        #expect(g.width == 64 && g.height == 48 && g.depth == 24)
        let (visual, depth) = c.defaultVisual
        #expect(c.isARGBCompatible(visual: visual, depth: depth))
        #expect(c.hasSharedMemory)
    }

    @Test func badWindowIsATypedError() throws {
        let x = try XvfbServer(width: 64, height: 48)
        defer { x.stop() }
        let c = try X11Connection(name: x.display)
        #expect(throws: X11Error.badWindow(resource: 0x1234567)) { try c.attributes(of: 0x1234567) }
        #expect(throws: X11Error.badWindow(resource: 0x1234567)) { try c.rootPosition(of: 0x1234567, root: c.root) }
        // The error was consumed: the next request succeeds.
        #expect(try c.geometry(of: c.root).width == 64)
    }

    @Test func readingOutsideTheScreenIsBadMatch() throws {
        let x = try XvfbServer(width: 64, height: 48)
        defer { x.stop() }
        let c = try X11Connection(name: x.display)
        let image = try X11SharedImage(connection: c, capacity: 64 * 48 * 4)
        let (visual, depth) = c.defaultVisual
        #expect(throws: X11Error.badMatch) {
            _ = try image.grab(c.root, x: 32, y: 0, width: 64, height: 48, visual: visual, depth: depth)
        }
        let ok = try image.grab(c.root, x: 0, y: 0, width: 64, height: 48, visual: visual, depth: depth)
        #expect(ok.bytesPerRow == 256 && ok.bitsPerPixel == 32 && ok.pixels.count == 256 * 48)
    }

    @Test func lostConnectionIsReportedNotFatal() throws {
        let x = try XvfbServer(width: 64, height: 48)
        defer { x.stop() }
        let c = try X11Connection(name: x.display)
        x.closeClient()
        x.crash()
        #expect(throws: X11Error.connectionLost) { try c.geometry(of: c.root) }
        #expect(c.isLost)
    }

    @Test func unreachableDisplay() {
        #expect(throws: VideoCaptureError.noDisplay(":65002")) { try X11Connection(name: ":65002") }
    }
}
