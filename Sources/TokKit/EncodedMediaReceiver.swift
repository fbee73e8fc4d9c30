import TokKitPeer
import TokKitRTP

/// Takes a subscriber's media encoded, as it arrives, instead of decoding it: for the session server's archive
/// recorder, which writes VP8 and Opus into a file without re-encoding.
///
/// A ``Subscriber`` made with ``Subscriber/init(stream:receiver:subscribeToAudio:subscribeToVideo:delegate:)``
/// negotiates, connects, restarts ICE and reports its events as any subscriber does, but builds no decoder: each
/// RTP packet (SRTP removed) goes to the receiver.
///
/// ## Threading
/// ``receive(_:kind:)`` runs on the media connection's network thread, one packet at a time, in arrival order:
/// return quickly, never block. The start and stop calls come from the session's negotiation queue.
@_spi(Recording) public protocol EncodedMediaReceiver: AnyObject, Sendable {
    /// A media connection starts delivering: after subscribing, and again when an ICE restart replaced the
    /// connection (RTP sequence numbers, timestamps and SSRCs may start afresh then).
    func encodedMediaDidStart(_ source: EncodedMediaSource)
    /// One RTP packet of `kind`, as the network delivered it: gaps, duplicates and reordering included (the
    /// connection NACKs losses; repairs arrive later as ordinary packets). Valid during the call only.
    func receive(_ packet: borrowing RTPPacketView, kind: MediaKind)
    /// `source` stopped delivering (unsubscribed, the stream ended, or replaced by a new connection).
    func encodedMediaDidStop(_ source: EncodedMediaSource)
}

/// One media connection delivering to an ``EncodedMediaReceiver``; lets the receiver ask for a key frame.
@_spi(Recording) public final class EncodedMediaSource: Sendable {
    private let peer: PeerConnection

    init(peer: PeerConnection) { self.peer = peer }

    /// Asks the publisher for a key frame (an RTCP picture loss indication) and tells whether it was sent: not
    /// before the connection is up and the first video packet has named the stream. Rate-limit the calls.
    @discardableResult
    public func requestKeyframe() -> Bool {
        do throws(PeerError) {
            try peer.requestKeyframe()
            return true
        } catch {
            return false
        }
    }

    /// The publisher's last RTCP sender report about its `kind` stream (nil before the first, about a second after
    /// the connection came up): what maps that stream's RTP timestamps to the publisher's wall clock, common to its
    /// audio and video. Allocates nothing.
    public func senderReport(_ kind: MediaKind) -> RemoteSenderReport? { peer.remoteSenderReport(kind) }

    /// Whether `self` and `other` are the same connection.
    public func isSame(as other: EncodedMediaSource) -> Bool { peer === other.peer }
}
