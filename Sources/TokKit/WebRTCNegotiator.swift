import Synchronization
import TokKitICE

/// The ``MediaNegotiator`` that carries real media: one WebRTC `PeerConnection` (ICE, DTLS-SRTP, BUNDLEd Opus +
/// VP8) per subscription, negotiated through the session's relay.
///
/// The publisher's end offers `sendonly` (audio and/or video, as the subscriber asked) and sends from the
/// publisher's encoders; the subscriber's end answers `recvonly` and feeds its decoders. Both trickle ICE
/// candidates (`candidate:…` payloads, then an empty `endOfCandidates`). The subscriber's end reports the
/// subscriber connected when its first media packet arrives (the peer's
/// `PeerConnectionEvent.firstMediaPacket` event), and a failed ICE or DTLS connection as a failure. The
/// remote end may be another TokKit client or a browser speaking the same relay protocol.
///
/// It is the default of every ``Session``; one instance may serve several sessions.
///
/// ## Threading
/// Thread-safe. Its methods run on the calling session's negotiation queue and return quickly: they create the
/// peer and its description, never wait for ICE.
public final class WebRTCNegotiator: MediaNegotiator {
    /// How peers gather candidates: every usable interface and loopback by default
    /// (`ICEConfiguration.allInterfaces`), `ICEConfiguration.loopback` for tests. The session adds the ICE
    /// servers the session server gives and those of its ``SessionSettings/ice``.
    public let ice: ICEConfiguration
    private let links = Mutex<[MediaNegotiationContext: MediaLink]>([:])

    /// A negotiator whose peers gather candidates as `ice` says (every interface and 127.0.0.1 by default).
    public init(ice: ICEConfiguration = .allInterfaces) {
        self.ice = ice
    }

    /// The publisher's end makes this subscription's peer connection and sends its offer, then its candidates as
    /// they are found; the subscriber's end waits for the offer.
    public func negotiationDidStart(_ context: MediaNegotiationContext, channel: NegotiationChannel) {
        let link = MediaLink(context: context, channel: channel)
        let previous = links.withLock { $0.updateValue(link, forKey: context) }
        previous?.end()
        link.start(ice: ice)
    }

    /// Applies an offer, answer or candidate to this subscription's peer (the subscriber's end answers an offer).
    public func negotiation(_ context: MediaNegotiationContext, didReceive message: NegotiationMessage,
                            channel: NegotiationChannel) {
        links.withLock { $0[context] }?.receive(message, ice: ice)
    }

    /// Closes this subscription's peer connection and stops its media.
    public func negotiationDidEnd(_ context: MediaNegotiationContext) {
        links.withLock { $0.removeValue(forKey: context) }?.end()
    }

    /// A local address went away (negotiation queue): every link that carried media treats its path as lost.
    func networkChanged() {
        for link in links.withLock({ Array($0.values) }) { link.pathLost() }
    }

    /// The session's signaling resumed (negotiation queue): links in an outage offer again now.
    func signalingResumed() {
        for link in links.withLock({ Array($0.values) }) { link.reofferNow() }
    }

    /// The media router asks the upstream `context` to offer again (negotiation queue; Protocol.md 6.7 step 5).
    func restartRequested(_ context: MediaNegotiationContext, iceUfrag: String) {
        links.withLock { $0[context] }?.restartRequested(iceUfrag: iceUfrag)
    }

    /// Negotiations in progress or carrying media (tests and the network lab's peers check that none leaks).
    @_spi(Testing) public var activeNegotiations: Int { links.withLock { $0.count } }

    /// The link of one negotiation (tests).
    func link(for context: MediaNegotiationContext) -> MediaLink? { links.withLock { $0[context] } }

    /// Every link (tests).
    var allLinks: [MediaLink] { links.withLock { Array($0.values) } }
}
