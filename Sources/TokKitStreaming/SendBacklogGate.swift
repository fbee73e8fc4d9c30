/// Whether the encode thread encodes the next frame or skips it because the send queue is behind: WebRTC's frame
/// dropper in its simplest form. The sending thread drains the ``PacketSendQueue`` at the pacer's rate; when what
/// waits there would take longer than ``maximumBacklog`` to leave, a new frame would only reach the receiver later
/// still, so it is not encoded at all (the capturer keeps running, the next frame is looked at again). A frame is
/// also skipped while the queue is more than half full (whatever its time: before the first estimate nothing is
/// paced), so that a frame encoded always finds room for itself and never loses its end. Each skipped frame lets the
/// queue drain by a frame interval, so skipping ends by itself.
///
/// The time is the pacer's own (``PacketPacer/frameRate(bytes:targetBitrate:)``): each frame at
/// ``PacketPacer/pacingFactor`` times the path's estimate, raised for a frame that would otherwise take longer than
/// ``PacketPacer/maximumFrameSpan``. Taking the nominal rate for every frame, as this gate did before 2026-11-28,
/// overstated a key frame's time at a low estimate (at 100 kb/s a 25 kB key frame leaves in 250 ms, not the
/// 800 ms the nominal 250 kb/s gives) and skipped the frames after it that would have left in time.
///
/// A pure value: the queue's figures go in, the decision comes out.
public struct SendBacklogGate: Sendable, Hashable {
    /// The most the queue may hold, in time at the pacing rate, for a frame to be encoded.
    public static let maximumBacklog: Duration = .milliseconds(400)

    /// Frames skipped so far (for either reason).
    public private(set) var skipped = 0
    /// Frames skipped because the queue was more than half full (counted in ``skipped`` too).
    public private(set) var skippedForRoom = 0

    public init() {}

    /// How long the pacer takes to send a packet of `payloadBytes` of a frame of `frameBytes` for the path's
    /// `estimate` (bits per second; `Int.max`: no estimate, nothing is paced, zero): its wire size at the frame's
    /// pacing rate (`factor` times the estimate, ``PacketPacer/frameRate(bytes:targetBitrate:factor:)``).
    public static func pacedTime(payloadBytes: Int, frameBytes: Int, estimate: Int,
                                 factor: Double = PacketPacer.pacingFactor) -> Duration {
        guard estimate != Int.max else { return .zero }
        let rate = PacketPacer.frameRate(bytes: frameBytes, targetBitrate: estimate, factor: factor)
        return PacketPacer.transmission(payloadBytes + PacketPacer.packetOverhead, at: rate)
    }

    /// Whether to encode a frame now, with `packets` waiting in a queue of `capacity` slots that take `backlog` to
    /// leave at the pacer's rate; counts a skip.
    public mutating func admits(backlog: Duration, packets: Int, capacity: Int) -> Bool {
        if packets > capacity / 2 {
            skipped += 1
            skippedForRoom += 1
            return false
        }
        if backlog > Self.maximumBacklog {
            skipped += 1
            return false
        }
        return true
    }
}
