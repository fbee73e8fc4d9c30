import Synchronization

/// Capture times by tick of the publisher's numbered pattern (`NumberedPatternCapturer`, whose `pick` records
/// them), in storage reserved up front (the capture thread never allocates); ticks past the capacity are not
/// recorded. A subscriber reads the picture number back from what it renders (``StampReader``) and the benchmark
/// finds that frame's capture time here: capture-to-render latency across processes (they share
/// `CLOCK_MONOTONIC`: network namespaces do not change clocks).
final class CaptureLog: Sendable {
    private let times: Mutex<[Duration]>
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        var times: [Duration] = []
        times.reserveCapacity(capacity)
        self.times = Mutex(times)
    }

    /// Called on the capture thread; ticks arrive in order from 0 (a restarted capture starts again at 0).
    func record(tick: Int, at time: Duration) {
        times.withLock { times in
            if tick < times.count { times[tick] = time } else if tick == times.count, times.count < capacity {
                times.append(time)
            }
        }
    }

    /// The capture time of the latest tick showing picture `number` (of `loop`) captured no later than
    /// `renderedAt`, nil if there is none.
    func captureTime(of number: Int, loop: Int, renderedAt: Duration) -> Duration? {
        times.withLock { times in
            // The last tick captured at or before renderedAt (times only grow).
            var low = 0, high = times.count
            while low < high {
                let mid = (low + high) / 2
                if times[mid] <= renderedAt { low = mid + 1 } else { high = mid }
            }
            let last = low - 1
            guard last >= 0 else { return nil }
            let tick = last - ((last - number) % loop + loop) % loop
            return tick >= 0 ? times[tick] : nil
        }
    }
}
