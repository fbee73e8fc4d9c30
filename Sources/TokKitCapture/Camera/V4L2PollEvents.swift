#if canImport(Glibc)
import Glibc
#endif

/// What `poll(2)` reported for a V4L2 descriptor (its `revents`).
///
/// A streaming capture device is ``readable`` when a filled buffer waits to be dequeued. The kernel reports
/// ``error`` when the queue is not streaming, and ``error`` + ``hangUp`` once the device is unplugged; a
/// following `VIDIOC_DQBUF` then tells which (`EINVAL` or `ENODEV`). An empty set means the timeout passed.
/// A plain value, usable from any thread.
public struct V4L2PollEvents: OptionSet, Hashable, Sendable {
    /// The `revents` bits.
    public let rawValue: Int16
    /// The events of `revents` bits `rawValue`.
    public init(rawValue: Int16) { self.rawValue = rawValue }

    /// `POLLIN | POLLRDNORM`: a buffer can be dequeued.
    public static let readable = V4L2PollEvents(rawValue: Int16(POLLIN | POLLRDNORM))
    /// `POLLPRI`: an event is pending.
    public static let priority = V4L2PollEvents(rawValue: Int16(POLLPRI))
    /// `POLLERR`: not streaming, or the device failed.
    public static let error = V4L2PollEvents(rawValue: Int16(POLLERR))
    /// `POLLHUP`: the device went away.
    public static let hangUp = V4L2PollEvents(rawValue: Int16(POLLHUP))
    /// `POLLNVAL`: the descriptor is not open.
    public static let invalid = V4L2PollEvents(rawValue: Int16(POLLNVAL))
}
