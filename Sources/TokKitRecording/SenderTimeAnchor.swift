import TokKitRTP

/// A point where a recording's timeline and a sender's wall clock meet: the sender time ``senderTime`` is at
/// ``offset`` on the archive's timeline. The first stream of a publisher placed by its arrival (and its sender
/// report) makes one; the publisher's other streams are placed from it (``offset(of:on:)``), so that what the
/// sender captured at the same instant is at the same archive time.
public struct SenderTimeAnchor: Hashable, Sendable {
    /// Where ``senderTime`` is on the archive's timeline.
    public let offset: Duration
    /// A sender NTP time, in nanoseconds since 1900.
    public let senderTime: Int64

    /// Sender time `senderTime` is at `offset` on the archive's timeline.
    public init(offset: Duration, senderTime: Int64) {
        self.offset = offset
        self.senderTime = senderTime
    }

    /// The anchor of a stream whose RTP timestamp `timestamp` is at `offset`, `clock` mapping its timestamps.
    public init(offset: Duration, timestamp: UInt32, clock: SenderClock) {
        self.init(offset: offset, senderTime: clock.senderTime(of: timestamp))
    }

    /// Where `timestamp` of a stream that `clock` maps is on the archive's timeline.
    public func offset(of timestamp: UInt32, on clock: SenderClock) -> Duration {
        offset + .nanoseconds(clock.senderTime(of: timestamp) - senderTime)
    }
}
