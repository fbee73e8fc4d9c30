import Testing
@testable import TokKitArchiving

/// The composed archive's grid: cells per stream count, aspect-kept fitting, even edges.
@Suite struct CompositionLayoutTests {
    @Test func gridGrowsWithTheStreams() {
        func grid(_ n: Int) -> [Int] { let g = CompositionLayout.grid(for: n); return [g.columns, g.rows] }
        #expect(grid(0) == [0, 0] && grid(-1) == [0, 0])
        #expect(grid(1) == [1, 1])
        #expect(grid(2) == [2, 1])
        #expect(grid(3) == [2, 2] && grid(4) == [2, 2])
        for n in 5...12 { #expect(grid(n) == [3, 3]) }
    }

    @Test func oneStreamTakesTheCanvasTwoSplitItSideBySide() {
        #expect(CompositionLayout.cells(count: 0, width: 640, height: 480).isEmpty)
        #expect(CompositionLayout.cells(count: 1, width: 640, height: 480) == [CanvasRect(x: 0, y: 0, width: 640, height: 480)])
        #expect(CompositionLayout.cells(count: 2, width: 640, height: 480)
            == [CanvasRect(x: 0, y: 0, width: 320, height: 480), CanvasRect(x: 320, y: 0, width: 320, height: 480)])
        #expect(CompositionLayout.cells(count: 3, width: 1280, height: 720)
            == [CanvasRect(x: 0, y: 0, width: 640, height: 360), CanvasRect(x: 640, y: 0, width: 640, height: 360),
                CanvasRect(x: 0, y: 360, width: 640, height: 360)])
    }

    @Test(arguments: [(640, 480), (1280, 720), (322, 242)])
    func cellsTileTheCanvasWithEvenEdges(width: Int, height: Int) {
        for n in 1...12 {
            let cells = CompositionLayout.cells(count: n, width: width, height: height)
            #expect(cells.count == min(n, 9))
            for c in cells {
                #expect(c.x % 2 == 0 && c.y % 2 == 0 && c.width % 2 == 0 && c.height % 2 == 0, "\(n): \(c)")
                #expect(c.x >= 0 && c.y >= 0 && c.x + c.width <= width && c.y + c.height <= height, "\(n): \(c)")
            }
            for (i, a) in cells.enumerated() {
                for b in cells[(i + 1)...] {
                    let apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y
                    #expect(apart, "\(n): \(a) overlaps \(b)")
                }
            }
            // A full grid covers every pixel.
            let (columns, rows) = CompositionLayout.grid(for: n)
            if n == columns * rows {
                #expect(cells.reduce(0) { $0 + $1.width * $1.height } == width * height)
            }
        }
    }

    @Test func picturesKeepTheirAspectLetterboxedAndCentred() throws {
        let half = CanvasRect(x: 320, y: 0, width: 320, height: 480)
        #expect(CompositionLayout.fit(width: 320, height: 240, into: half) == CanvasRect(x: 320, y: 120, width: 320, height: 240))
        let full = CanvasRect(x: 0, y: 0, width: 640, height: 480)
        #expect(CompositionLayout.fit(width: 1280, height: 720, into: full) == CanvasRect(x: 0, y: 60, width: 640, height: 360))
        #expect(CompositionLayout.fit(width: 480, height: 640, into: full) == CanvasRect(x: 140, y: 0, width: 360, height: 480))
        #expect(CompositionLayout.fit(width: 160, height: 120, into: full) == full, "a small picture is scaled up")
        let odd = try #require(CompositionLayout.fit(width: 333, height: 101, into: CanvasRect(x: 214, y: 160, width: 212, height: 160)))
        #expect(odd.x % 2 == 0 && odd.y % 2 == 0 && odd.width % 2 == 0 && odd.height % 2 == 0, "\(odd)")
        #expect(odd.width == 212 && abs(odd.height - 64) <= 2, "\(odd)")
        #expect(CompositionLayout.fit(width: 0, height: 240, into: full) == nil)
    }
}

/// The composed archive's schedule: audio periods and video frames due, catching up when late.
@Suite struct CompositionClockTests {
    @Test func handsOutEachPeriodAndFrameOnceAtItsTime() {
        var clock = CompositionClock(framesPerSecond: 15)
        var due = clock.due(at: .zero)
        #expect(due.audioPeriods == 0..<1 && due.videoFrame == 0)
        due = clock.due(at: .milliseconds(10))
        #expect(due.audioPeriods.isEmpty && due.videoFrame == nil)
        due = clock.due(at: .milliseconds(20))
        #expect(due.audioPeriods == 1..<2 && due.videoFrame == nil)
        due = clock.due(at: .milliseconds(70))
        #expect(due.audioPeriods == 2..<4 && due.videoFrame == 1)
        #expect(clock.videoTime(1) == .seconds(1) / 15 && clock.audioTime(3) == .milliseconds(60))
        due = clock.due(at: .milliseconds(50))
        #expect(due.audioPeriods.isEmpty && due.videoFrame == nil, "time going back hands out nothing")
        #expect(clock.audioPeriodsSkipped == 0 && clock.videoFramesSkipped == 0)
    }

    @Test func runningLateKeepsAudioWholeAndSkipsStaleFrames() {
        var clock = CompositionClock(framesPerSecond: 30, maximumAudioCatchUp: 25)
        _ = clock.due(at: .zero)
        var due = clock.due(at: .milliseconds(200))  // 10 periods and 6 frames due at once
        #expect(due.audioPeriods == 1..<11)
        #expect(due.videoFrame == 6 && clock.videoFramesSkipped == 5)
        due = clock.due(at: .seconds(2))  // far behind: audio limited to the last 25 periods
        #expect(due.audioPeriods == 76..<101 && clock.audioPeriodsSkipped == 65)
        #expect(due.videoFrame == 60)
        var total = 0
        var clock2 = CompositionClock(framesPerSecond: 15)
        var frames = 0
        for step in 0...400 {  // 4 s in 10 ms steps
            let d = clock2.due(at: .milliseconds(10 * step))
            total += d.audioPeriods.count
            if d.videoFrame != nil { frames += 1 }
        }
        #expect(total == 201 && frames == 61 && clock2.videoFramesSkipped == 0)
    }
}
