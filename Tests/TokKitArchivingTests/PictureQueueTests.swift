import Testing

@testable import TokKitArchiving

/// The queue of decoded pictures a composed stream shows from, with plain values for pictures.
@Suite struct PictureQueueTests {
    /// Due at its arrival.
    static func arrival(_ entry: PictureQueue<Int>.Entry) -> Duration { entry.arrival }
    /// Half a 10 fps canvas frame: how early a picture may be shown in the tests that do not model a canvas.
    static let lead = Duration.milliseconds(50)

    @Test func showsTheNewestDuePictureAndReleasesTheOlderOnes() {
        let queue = PictureQueue<Int>(capacity: 4)
        #expect(queue.select(at: .seconds(1), lead: Self.lead, due: Self.arrival) == nil, "empty")
        queue.push(1, timestamp: 0, arrival: .milliseconds(10))
        queue.push(2, timestamp: 3_000, arrival: .milliseconds(20))
        queue.push(3, timestamp: 6_000, arrival: .milliseconds(30))
        #expect(queue.select(at: .milliseconds(25), lead: Self.lead, due: Self.arrival) == 2)
        #expect(queue.count == 2, "picture 1 released")
        #expect(queue.select(at: .milliseconds(25), lead: Self.lead, due: Self.arrival) == 2,
                "shown again until a newer one is due")
        #expect(queue.select(at: .milliseconds(30), lead: Self.lead, due: Self.arrival) == 3, "due exactly then")
        #expect(queue.count == 1 && queue.newest == 3)
    }

    @Test func whenNoneIsDueTheOldestIsShown() {
        let queue = PictureQueue<Int>(capacity: 4)
        queue.push(7, timestamp: 0, arrival: .milliseconds(50))
        queue.push(8, timestamp: 0, arrival: .milliseconds(60))
        #expect(queue.select(at: .milliseconds(10), lead: Self.lead, due: Self.arrival) == 7)
        #expect(queue.count == 2, "nothing released")
    }

    @Test func dueTimesComeFromTheEntriesTimestamps() {
        let queue = PictureQueue<Int>(capacity: 4)
        for (n, timestamp) in [(1, UInt32(100)), (2, 200), (3, 300)] { queue.push(n, timestamp: timestamp, arrival: .zero) }
        let byTimestamp: (PictureQueue<Int>.Entry) -> Duration = { .milliseconds(Int($0.timestamp)) }
        #expect(queue.select(at: .milliseconds(250), lead: Self.lead, due: byTimestamp) == 2, "as near as the next: the one due")
        #expect(queue.select(at: .milliseconds(251), lead: Self.lead, due: byTimestamp) == 3, "nearer, though not yet due")
        #expect(queue.count == 1, "picture 2 released")
        #expect(queue.select(at: .milliseconds(300), lead: Self.lead, due: byTimestamp) == 3)
    }

    @Test func aCanvasSlowerThanItsSourceShowsEachPictureWithinHalfASourceFrame() {
        // A 30 fps source (pictures due every 33.3 ms, 3 ms behind the canvas's grid) on a 15 fps canvas.
        let queue = PictureQueue<Int>(capacity: 5)
        let due: (PictureQueue<Int>.Entry) -> Duration = { .microseconds(Int64($0.timestamp)) }
        var next = 0
        for canvas in 0..<30 {
            let time = Duration.microseconds(Int64(canvas) * 66_667)
            // Pictures are pushed ahead of their due time, as the composer's audio delay lets them arrive.
            while next * 33_333 + 3_000 <= Int(canvas) * 66_667 + 80_000 {
                queue.push(next, timestamp: UInt32(next * 33_333 + 3_000), arrival: .zero)
                next += 1
            }
            let shown = queue.select(at: time, lead: .microseconds(33_333), due: due)!
            let error = abs(Double(shown * 33_333 + 3_000) - Double(canvas) * 66_667)
            #expect(error <= 16_667, "canvas \(canvas): picture \(shown), \(error) µs from its due time")
        }
    }

    @Test func aSourceSlowerThanItsCanvasIsNeverShownMoreThanHalfACanvasFrameEarly() {
        // A 5 fps source (a picture due every 200 ms) on a 15 fps canvas (66.7 ms): each picture is pushed long before
        // it is due; the canvas must keep the previous one until the next is at most 33.3 ms ahead.
        let queue = PictureQueue<Int>(capacity: 5)
        let due: (PictureQueue<Int>.Entry) -> Duration = { .microseconds(Int64($0.timestamp)) }
        var next = 0
        var shownEarly: [String] = []
        for canvas in 0..<45 {
            let time = Int(canvas) * 66_667
            while next * 200_000 <= time + 300_000 {
                queue.push(next, timestamp: UInt32(next * 200_000), arrival: .zero)
                next += 1
            }
            let shown = queue.select(at: .microseconds(Int64(time)), lead: .microseconds(33_333), due: due)!
            if shown * 200_000 - time > 33_334 { shownEarly.append("canvas \(canvas): picture \(shown)") }
        }
        #expect(shownEarly.isEmpty, "\(shownEarly)")
    }

    @Test func aFullQueueDropsItsOldest() {
        let queue = PictureQueue<Int>(capacity: 2)
        queue.push(1, timestamp: 0, arrival: .zero)
        queue.push(2, timestamp: 0, arrival: .zero)
        queue.push(3, timestamp: 0, arrival: .zero)
        #expect(queue.count == 2 && queue.overflowed == 1 && queue.newest == 3)
        #expect(queue.select(at: .seconds(1), lead: Self.lead, due: { _ in .seconds(2) }) == 2, "none due: the oldest left")
        // Everything due at once: the newest (before sync, the composer shows the newest this way).
        #expect(queue.select(at: .zero, lead: Self.lead, due: { _ in .zero }) == 3)
        #expect(queue.count == 1)
        // Wrapping around the slots keeps the order.
        for n in 4...9 { queue.push(n, timestamp: 0, arrival: .milliseconds(n)) }
        #expect(queue.count == 2 && queue.newest == 9)
        #expect(queue.select(at: .milliseconds(8), lead: Self.lead, due: Self.arrival) == 8)
        queue.removeAll()
        #expect(queue.count == 0 && queue.newest == nil)
        #expect(queue.select(at: .seconds(9), lead: Self.lead, due: Self.arrival) == nil)
    }
}
