/// A few decoded pictures of one stream waiting to be shown in a composed archive, oldest first, each with its
/// RTP timestamp and its arrival on the archive's timeline.
///
/// The network thread pushes every decoded picture (the oldest is dropped when all ``capacity`` slots are taken);
/// the composing thread asks, for each canvas, for the picture due nearest its time (``select(at:lead:due:)``): the
/// newest whose due time is not after it, or the one after that when its due time is nearer and at most `lead`
/// (half a canvas frame) ahead (a picture a little early is better than one almost a frame late), the older ones
/// being released. The picture chosen stays at the head, shown again until a newer one is nearer; when none is due
/// yet, the oldest held is shown (the stream keeps its tile). So a canvas slower than its source (15 fps showing
/// 30 fps) shows each picture at most half a source frame from its due time, one at the source's rate shows each
/// picture at its own time, and a source slower than the canvas (a 5 fps screen share) is never shown more than
/// half a canvas frame early.
///
/// Storage: ``capacity`` slots allocated at init; nothing is allocated per push or select. Generic over the picture
/// so that it is tested with plain values. Threading: not thread-safe; guard it with a lock (both calls are short).
final class PictureQueue<Element> {
    /// One picture waiting.
    struct Entry {
        /// The picture.
        var element: Element
        /// Its frame's RTP timestamp.
        var timestamp: UInt32
        /// When it was decoded, on the archive's timeline.
        var arrival: Duration
    }

    /// Slots.
    let capacity: Int
    private var slots: [Entry?]
    private var head = 0
    /// Pictures held.
    private(set) var count = 0
    /// Pictures dropped unshown because the queue was full.
    private(set) var overflowed = 0

    /// An empty queue of `capacity` slots (at least 1).
    init(capacity: Int) {
        precondition(capacity >= 1, "a picture queue needs a slot")
        self.capacity = capacity
        slots = Array(repeating: nil, count: capacity)
    }

    /// Adds the newest picture; when full, the oldest is dropped (counted in ``overflowed``).
    func push(_ element: Element, timestamp: UInt32, arrival: Duration) {
        if count == capacity {
            slots[head] = nil
            head = (head + 1) % capacity
            count -= 1
            overflowed += 1
        }
        slots[(head + count) % capacity] = Entry(element: element, timestamp: timestamp, arrival: arrival)
        count += 1
    }

    /// The newest picture held, `nil` when empty.
    var newest: Element? { count == 0 ? nil : slots[(head + count - 1) % capacity]?.element }

    /// The picture to show at `time`: the newest whose `due` time is not after `time`, or the next one when it is
    /// due at most `lead` after `time` and sooner than that one was before it (older ones are released); the oldest
    /// held when none is due yet; `nil` when empty.
    func select(at time: Duration, lead: Duration, due: (Entry) -> Duration) -> Element? {
        var chosen: Int?
        var chosenDue = Duration.zero
        for i in 0..<count {
            guard let entry = slots[(head + i) % capacity] else { continue }
            let entryDue = due(entry)
            if entryDue <= time { (chosen, chosenDue) = (i, entryDue) }
        }
        if let newestDue = chosen, newestDue + 1 < count, let next = slots[(head + newestDue + 1) % capacity] {
            let nextDue = due(next)
            let early = nextDue - time
            if nextDue > time && early <= lead && early < time - chosenDue { chosen = newestDue + 1 }
        }
        if let chosen {
            for _ in 0..<chosen {
                slots[head] = nil
                head = (head + 1) % capacity
                count -= 1
            }
        }
        return count == 0 ? nil : slots[head]?.element
    }

    /// Releases every picture.
    func removeAll() {
        for i in slots.indices { slots[i] = nil }
        head = 0
        count = 0
    }
}
