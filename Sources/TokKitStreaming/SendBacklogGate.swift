/// Whether the encode thread encodes the next frame or skips it because the send queue is behind: WebRTC's frame
/// dropper in its simplest form. The sending thread drains the ``PacketSendQueue`` at the pacer's rate
/// (``PacketPacer/pacingFactor`` times the path's estimate); when what waits there would take longer than
/// ``maximumBacklog`` to leave, a new frame would only reach the receiver later still, so it is not encoded at all
/// (the capturer keeps running, the next frame is looked at again). Each skipped frame lets the queue drain by a
/// frame interval, so skipping ends by itself.
///
/// A pure value: the queue's figures go in, the decision comes out.
public struct SendBacklogGate: Sendable, Hashable {
    /// The most the queue may hold, in time at the pacing rate, for a frame to be encoded.
    public static let maximumBacklog: Duration = .milliseconds(400)

    /// Frames skipped so far.
    public private(set) var skipped = 0

    public init() {}

    /// How long `bytes` of payload in `packets` packets take to leave at the pacing rate for `estimate` (bits per
    /// second; `Int.max`: no estimate, nothing is paced, zero).
    public static func backlog(bytes: Int, packets: Int, estimate: Int) -> Duration {
        guard estimate != Int.max, bytes > 0 else { return .zero }
        let wire = bytes + packets * PacketPacer.packetOverhead
        return PacketPacer.transmission(wire, at: PacketPacer.rate(for: estimate))
    }

    /// Whether to encode a frame now, with `bytes` in `packets` waiting and the path's `estimate`; counts a skip.
    public mutating func admits(bytes: Int, packets: Int, estimate: Int) -> Bool {
        if Self.backlog(bytes: bytes, packets: packets, estimate: estimate) > Self.maximumBacklog {
            skipped += 1
            return false
        }
        return true
    }
}
