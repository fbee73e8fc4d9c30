/// What sets the rhythm of a started device side: one 10 ms period per tick.
///
/// Real sound cards pace by blocking: a read returns when the microphone has produced a period, a write when
/// the speaker has room. Files, generators and ALSA's `null` plugin never block, so they need a clock.
/// A plain value (Sendable).
public enum AudioPacing: Sendable, Hashable {
    /// The device blocks until a period is ready (real ALSA hardware).
    case device
    /// The device's own clock: a ``PeriodicThread`` ticking every ``AudioFormat/period`` on an absolute schedule.
    case clock
}
