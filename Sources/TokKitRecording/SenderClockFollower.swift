import TokKitRTP

/// How far a stream's sender clock moved since a reference sender report: the correction that keeps the stream's
/// placement on the archive's timeline where its newer sender reports say its timestamps are.
///
/// A recorder places a stream by its RTP timestamps, and the publisher's streams against each other through their
/// RTCP sender reports (``SenderTimeAnchor``), taken once. A sender may later move the mapping its reports give (a
/// TokKit sender's audio origin moves when its capture clock estimate moves, `AudioEncodeStage.originShift`; a
/// sound card drifts against the wall clock): the same RTP timestamp then stands for another sender instant, and
/// a placement by the first reports only would keep that stream off by the move. ``shift(after:)`` gives the move:
/// the sender time the newer report gives any timestamp minus the time the reference gives it (the same for every
/// timestamp when both have the stream's clock rate). A recorder adds it to the stream's placement, gradually
/// (``StreamTimeline/follow(correction:)``).
///
/// Reports carry noise (a forwarding server such as Janus writes its own reports from when it relayed a packet): the
/// move followed is the median of the last three reports' moves, and a median within ``deadBand`` of the move
/// followed so far changes nothing. A move larger than ``maximumShift`` is not believable as a clock move (a
/// sender's clock jumped, or a restarted stream's reports): it is not followed (`nil`), and counted. The limit is
/// from the reference report: a sound card drifting 100 ppm reaches it after ~2.8 h, and then the stream is no
/// longer followed (Docs/Archiving.md). A plain value: no clock, no I/O; tested alone.
public struct SenderClockFollower: Hashable, Sendable {
    /// Moves beyond this are not followed.
    public static let maximumShift: Duration = .seconds(1)
    /// Changes of the followed move smaller than this are taken as report noise.
    public static let deadBand: Duration = .milliseconds(2)
    /// The report the placement was made with.
    public let reference: SenderClock
    /// Reports whose move was beyond ``maximumShift``.
    public private(set) var reportsIgnored = 0
    /// The move followed so far.
    public private(set) var followed: Duration = .zero
    /// The last three believable moves, oldest first (fewer at first).
    private var recent: [Duration] = []

    /// A follower of a stream placed with `reference`.
    public init(reference: SenderClock) {
        self.reference = reference
    }

    /// The stream's placement correction after `report` (a newer sender report of the same stream, same clock
    /// rate): positive when its timestamps now stand for later sender instants; the median of the last three
    /// reports' moves (the latest while there are fewer), unchanged within ``deadBand``. `nil` (and counted) beyond
    /// ``maximumShift``.
    public mutating func shift(after report: SenderClock) -> Duration? {
        let nanoseconds = report.ntpNanoseconds - reference.senderTime(of: report.rtpTimestamp)
        let shift = Duration.nanoseconds(nanoseconds)
        guard shift <= Self.maximumShift, shift >= .zero - Self.maximumShift else {
            reportsIgnored += 1
            return nil
        }
        if recent.count == 3 { recent.removeFirst() }
        recent.append(shift)
        let candidate = recent.count < 3 ? shift : recent.sorted()[1]
        if abs((candidate - followed) / .nanoseconds(1)) >= Self.deadBand / .nanoseconds(1) { followed = candidate }
        return followed
    }
}
