import TokKitDTLS
import TokKitICE
import TokKitMedia
import TokKitPeer
import TokKitSDP
import TokKitSRTP
import TokKitStreaming

extension SessionError {
    /// The typed error of the layer below the session that made an operation fail: the layer that actually failed,
    /// as deep as it is known (a DTLS handshake that failed is ``dtls(_:)``, not the peer connection around it).
    ///
    /// Equatable and hashable by value, like the errors it carries; safe on any thread.
    public enum Cause: Error, Sendable, Hashable, CustomStringConvertible {
        /// A session description (the other end's offer or answer) did not parse.
        case sdp(SDPError)
        /// The peer connection refused an operation: a remote description it cannot use, a call in the wrong
        /// signalling state.
        case peer(PeerError)
        /// ICE failed: no candidate pair worked (`ICEError.connectivityFailed`), or the agent could not be set up.
        case ice(ICEError)
        /// The DTLS handshake failed (for example `DTLSError.fingerprintMismatch`: the other end's certificate is
        /// not the one its session description announced).
        case dtls(DTLSError)
        /// SRTP could not be set up with the keys DTLS produced.
        case srtp(SRTPError)
        /// A media pipeline (the encoders) could not be built.
        case streaming(StreamingError)
        /// The video capturer could not start.
        case videoCapture(VideoCaptureError)

        /// `error`, looked through to the layer that failed: a `PeerError` wrapping an SDP, ICE or DTLS error
        /// becomes that error's case, and a DTLS error wrapping an ICE or SRTP error becomes that one's.
        public init(_ error: PeerError) {
            switch error {
            case .sdp(let e): self = .sdp(e)
            case .ice(let e): self = .ice(e)
            case .dtls(let e): self = Cause(e)
            default: self = .peer(error)
            }
        }

        /// `error`, looked through to ICE or SRTP when it wraps their errors.
        public init(_ error: DTLSError) {
            switch error {
            case .ice(let e): self = .ice(e)
            case .srtp(let e): self = .srtp(e)
            default: self = .dtls(error)
            }
        }

        /// The carried error itself.
        public var error: any Error & Sendable {
            switch self {
            case .sdp(let e): e
            case .peer(let e): e
            case .ice(let e): e
            case .dtls(let e): e
            case .srtp(let e): e
            case .streaming(let e): e
            case .videoCapture(let e): e
            }
        }

        public var description: String {
            switch self {
            case .sdp(let e): "SDP: \(e)"
            case .peer(let e): "peer connection: \(e)"
            case .ice(let e): "ICE: \(e)"
            case .dtls(let e): "DTLS: \(e)"
            case .srtp(let e): "SRTP: \(e)"
            case .streaming(let e): "media pipeline: \(e)"
            case .videoCapture(let e): "video capture: \(e)"
            }
        }
    }
}
