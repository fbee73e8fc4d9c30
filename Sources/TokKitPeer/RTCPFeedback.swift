/// RTCP feedback about one of our sending sections that the media pipeline acts on (RFC 4585, RFC 5104, REMB,
/// and the bandwidth estimated from transport-wide feedback).
///
/// Generic NACKs (RFC 4585 §6.2.1) are not reported: ``PeerConnection`` answers them itself by retransmitting
/// from its send history. Value type, usable from any thread.
public enum RTCPFeedback: Sendable, Hashable {
    /// Picture loss indication (RFC 4585 §6.3.1): the peer lost decoder state; send a key frame.
    case pictureLoss
    /// Full intra request (RFC 5104 §4.3.1), a new request (repeats with the same command sequence number are
    /// filtered): send a key frame.
    case fullIntraRequest
    /// Receiver estimated maximum bitrate in bits per second (draft-alvestrand-rmcat-remb) covering our stream.
    case receiverEstimatedMaximumBitrate(UInt64)
    /// The video's share, in bits per second of encoder output, of our own send-side estimate
    /// (draft-ietf-rmcat-gcc-02, computed from the peer's transport-wide feedback about our packets,
    /// draft-holmer-rmcat-transport-wide-cc-extensions-01): the estimate less what the audio sends, what the
    /// video's retransmissions take (at most half) and the video's packet headers (``PeerConnection/bandwidthEstimate``
    /// is the whole estimate); reported on the video section
    /// when it first exists and then when it changes by 1 % or more.
    case sendSideEstimatedBitrate(UInt64)
    /// Not a message from the peer: its NACKs asked for video packets that we will not send again, as the path is
    /// overloaded (``PeerConnection``'s repairs, `NACKResponder`). The peer's decoder waits for a key frame it would
    /// ask for only after giving the frame up; send one now. Reported on the video section.
    case repairsDeclined
}
