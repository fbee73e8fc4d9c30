import TokKitDTLS
import TokKitICE
import TokKitRTP
import TokKitSDP

/// Why a ``PeerConnection`` operation failed.
///
/// Value type, usable from any thread.
public enum PeerError: Error, Sendable, Hashable {
    /// The call is not valid in the current signalling state (e.g. an answer before an offer, or after close).
    case invalidState(String)
    /// The remote description lacks something TokKit needs (ICE credentials, a fingerprint, a setup role).
    case invalidRemoteDescription(String)
    /// No negotiated media section of this kind (rejected, or not sending).
    case noSuchTrack(MediaKind)
    /// The payload does not fit one packet.
    case payloadTooLarge(Int)
    /// Media was sent before DTLS-SRTP is connected, or after failure/close.
    case notConnected
    /// The SDP layer failed.
    case sdp(SDPError)
    /// The ICE layer failed.
    case ice(ICEError)
    /// The DTLS-SRTP layer failed.
    case dtls(DTLSError)
    /// The RTP/RTCP layer failed.
    case rtp(RTPError)
}
