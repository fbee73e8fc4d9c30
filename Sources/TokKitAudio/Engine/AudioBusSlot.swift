import Synchronization

/// The bus a device currently talks to, shared by its capture and render sides. Set from the control thread,
/// read once per period by the data threads (an uncontended lock and a retain, no allocation).
final class AudioBusSlot: Sendable {
    private let bus = Mutex<(any AudioBus)?>(nil)

    /// The current bus, or nil when detached.
    var current: (any AudioBus)? { bus.withLock { $0 } }

    /// Replaces the bus (nil detaches it); the data threads see the change on their next period.
    func set(_ newValue: (any AudioBus)?) { bus.withLock { $0 = newValue } }
}
