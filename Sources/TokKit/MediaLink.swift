import Synchronization
import TokKitICE
import TokKitPeer
import TokKitSDP

/// One end of one subscription's media: the ``PeerConnection`` a ``WebRTCNegotiator`` made for it, the
/// signalling it still waits for, and its attachment to the publisher's or subscriber's media.
///
/// ## Flow
/// Publisher side: ``start(ice:)`` creates a send-only peer (SSRCs only for the kinds the subscriber wants: those
/// sections are `sendonly`, the others `inactive`), attaches it to the publisher's media and sends the offer;
/// the answer and the subscriber's candidates follow.
/// Subscriber side: the offer creates a receive-only peer, attached to the subscriber's media, and the answer
/// (`recvonly` for each section the publisher sends) goes back. Both ends trickle their candidates and
/// end-of-candidates from the peer's events. Candidates that arrive before the peer exists wait (at most
/// ``maxPendingCandidates``).
///
/// ## Threading
/// ``start(ice:)``, ``receive(_:ice:)`` and ``end()`` run on the session's negotiation queue; the peer's events are
/// followed by one task per link (control plane). State is guarded by one lock with an explicit phase.
final class MediaLink: Sendable {
    enum Phase: Sendable, Equatable {
        /// Created; no peer yet (the subscriber side waits for the offer).
        case idle
        /// Publisher side: offer sent, waiting for the answer.
        case offered
        /// Offer and answer applied: ICE and DTLS run, then media.
        case negotiated
        /// The peer failed; the session was told.
        case failed
        /// ``end()`` ran. Terminal.
        case ended
    }

    /// The media a peer is attached to.
    enum Attachment: Sendable {
        case publisher(PublisherMedia)
        case subscriber(SubscriberMedia)
    }

    private struct State: ~Copyable {
        var phase: Phase = .idle
        var peer: PeerConnection?
        var attachment: Attachment?
        var events: Task<Void, Never>?
        var pendingCandidates: [String] = []
        var pendingEnd = false
        /// Subscriber side: ``NegotiationChannel/reportConnected()`` was called.
        var reportedConnected = false
        /// The offer or answer this end sent.
        var localDescription: String?
    }

    let context: MediaNegotiationContext
    let channel: NegotiationChannel
    private let state = Mutex(State())

    /// Most remote candidates kept before the peer exists.
    static let maxPendingCandidates = 64

    init(context: MediaNegotiationContext, channel: NegotiationChannel) {
        self.context = context
        self.channel = channel
    }

    var phase: Phase { state.withLock { $0.phase } }

    /// The peer connection, once created (tests and statistics).
    var peer: PeerConnection? { state.withLock { $0.peer } }

    /// The SDP offer (publisher side) or answer (subscriber side) this end sent, once sent (tests).
    var localDescription: String? { state.withLock { $0.localDescription } }

    // MARK: - Signalling (negotiation queue)

    /// Publisher side: creates the sending peer and sends the offer.
    func start(ice: IceConfiguration) {
        guard context.side == .publisher else { return }
        guard let session = channel.owner, let publisher = session.publisher(streamId: context.streamId) else {
            return fail(.internalError("no publisher for stream \(context.streamId)"))
        }
        let configuration = PeerConfiguration(
            ice: session.iceConfiguration(base: ice),
            audioSSRC: context.wantsAudio ? UInt32.random(in: 1...UInt32.max) : nil,
            videoSSRC: context.wantsVideo ? UInt32.random(in: 1...UInt32.max) : nil,
            cname: Self.token(context.peerConnectionId), streamID: Self.token(context.streamId),
            receivesAudio: false, receivesVideo: false)
        let offer: SessionDescription
        let peer: PeerConnection
        do throws(PeerError) {
            peer = try PeerConnection(configuration: configuration)
            guard install(peer, phase: .offered) else { return peer.close() }
            offer = try peer.createOffer()
        } catch {
            return fail(.internalError("could not create the offer: \(error)"))
        }
        guard attach(.publisher(publisher.media), peer) else { return }
        state.withLock { $0.localDescription = offer.sdp }
        send(.offer, offer.sdp)
        follow(peer)
    }

    /// Applies one message from the other end.
    func receive(_ message: NegotiationMessage, ice: IceConfiguration) {
        switch message.kind {
        case .offer: answer(message.payload, ice: ice)
        case .answer: applyAnswer(message.payload)
        case .candidate: addCandidate(message.payload)
        case .endOfCandidates: addEndOfCandidates()
        }
    }

    /// Closes the peer and detaches it from the media. Idempotent.
    func end() {
        let taken: (PeerConnection?, Attachment?, Task<Void, Never>?)? = state.withLock { s in
            guard s.phase != .ended else { return nil }
            s.phase = .ended
            defer { s.peer = nil; s.attachment = nil; s.events = nil; s.pendingCandidates = [] }
            return (s.peer, s.attachment, s.events)
        }
        guard let (peer, attachment, events) = taken else { return }
        if let peer {
            switch attachment {
            case .publisher(let media): media.detach(peer)
            case .subscriber(let media): media.detach(peer)
            case nil: break
            }
        }
        events?.cancel()
        peer?.close()
    }

    private func answer(_ sdp: String, ice: IceConfiguration) {
        guard context.side == .subscriber, phase == .idle else { return }
        guard let session = channel.owner, let subscriber = session.subscriber(subscriberId: context.subscriberId)
        else { return }
        let offer: SessionDescription
        do throws(SDPError) { offer = try SessionDescription(parsing: sdp) } catch {
            return fail(.invalidParameter("the publisher's offer is not valid SDP: \(error)"))
        }
        let configuration = PeerConfiguration(ice: session.iceConfiguration(base: ice), audioSSRC: nil, videoSSRC: nil,
                                              cname: Self.token(context.subscriberId))
        let peer: PeerConnection
        let answer: SessionDescription
        do throws(PeerError) {
            peer = try PeerConnection(configuration: configuration)
            guard install(peer, phase: .negotiated) else { return peer.close() }
            // Handlers first: media may arrive as soon as the answer is applied.
            guard attach(.subscriber(subscriber.media), peer) else { return }
            answer = try peer.createAnswer(for: offer)
        } catch {
            return fail(.internalError("could not answer the offer: \(error)"))
        }
        state.withLock { $0.localDescription = answer.sdp }
        send(.answer, answer.sdp)
        follow(peer)
        flushPending(peer)
    }

    private func applyAnswer(_ sdp: String) {
        guard context.side == .publisher else { return }
        let peer: PeerConnection? = state.withLock { s in
            guard s.phase == .offered else { return nil }
            s.phase = .negotiated
            return s.peer
        }
        guard let peer else { return }
        do throws(SDPError) {
            let answer = try SessionDescription(parsing: sdp)
            do throws(PeerError) { try peer.setRemoteDescription(answer) } catch {
                return fail(.internalError("could not apply the answer: \(error)"))
            }
        } catch {
            return fail(.invalidParameter("the subscriber's answer is not valid SDP: \(error)"))
        }
        flushPending(peer)
    }

    private func addCandidate(_ candidate: String) {
        let ready: PeerConnection? = state.withLock { s in
            switch s.phase {
            case .negotiated: return s.peer
            case .idle, .offered:
                if s.pendingCandidates.count < Self.maxPendingCandidates { s.pendingCandidates.append(candidate) }
                return nil
            case .failed, .ended: return nil
            }
        }
        // A candidate TokKit cannot use (TCP, a second component) is skipped, as browsers do.
        try? ready?.addRemoteCandidate(candidate)
    }

    private func addEndOfCandidates() {
        let ready: PeerConnection? = state.withLock { s in
            switch s.phase {
            case .negotiated: return s.peer
            case .idle, .offered:
                s.pendingEnd = true
                return nil
            case .failed, .ended: return nil
            }
        }
        try? ready?.addRemoteEndOfCandidates()
    }

    /// Applies candidates that arrived before the remote description.
    private func flushPending(_ peer: PeerConnection) {
        let (candidates, end) = state.withLock { s in
            defer { s.pendingCandidates = []; s.pendingEnd = false }
            return (s.pendingCandidates, s.pendingEnd)
        }
        for candidate in candidates { try? peer.addRemoteCandidate(candidate) }
        if end { try? peer.addRemoteEndOfCandidates() }
    }

    // MARK: - Peer events (control plane)

    /// Stores `peer` unless the link already ended.
    private func install(_ peer: PeerConnection, phase: Phase) -> Bool {
        state.withLock { s in
            guard s.phase == .idle else { return false }
            s.phase = phase
            s.peer = peer
            return true
        }
    }

    /// Follows the peer's events: trickles candidates, reports failure and, on the subscriber side, the
    /// subscriber connected at the peer's ``PeerConnectionEvent/firstMediaPacket(_:)`` event (no polling).
    private func follow(_ peer: PeerConnection) {
        let task = Task { [weak self, events = peer.events] in
            for await event in events {
                guard let self else { return }
                switch event {
                case .localCandidate(let candidate): self.send(.candidate, candidate)
                case .gatheringComplete: self.send(.endOfCandidates, "")
                case .stateChanged(.failed): self.fail(.connectionFailed("the media connection failed (ICE or DTLS)"))
                case .firstMediaPacket where self.context.side == .subscriber: self.reportConnectedOnce()
                case .stateChanged, .firstMediaPacket: break
                }
            }
        }
        let keep = state.withLock { s in
            guard s.phase != .ended else { return false }
            s.events = task
            return true
        }
        if !keep { task.cancel() }
    }

    /// Subscriber side: the peer's first media packet (of either kind) arrived, so the subscriber is connected.
    /// Reported once per link, and only while negotiated (not after a failure or ``end()``).
    private func reportConnectedOnce() {
        let report = state.withLock { s in
            guard s.phase == .negotiated, !s.reportedConnected else { return false }
            s.reportedConnected = true
            return true
        }
        if report { channel.reportConnected() }
    }

    private func send(_ kind: NegotiationMessage.Kind, _ payload: String) {
        // Fails only when the session or the negotiation is gone, which ends this link too.
        try? channel.send(NegotiationMessage(kind: kind, payload: payload))
    }

    private func fail(_ error: SessionError) {
        let first = state.withLock { s in
            guard s.phase != .failed, s.phase != .ended else { return false }
            s.phase = .failed
            return true
        }
        if first { channel.reportFailed(error) }
    }

    /// Attaches `peer` to `attachment` and remembers it, unless the link ended meanwhile.
    private func attach(_ attachment: Attachment, _ peer: PeerConnection) -> Bool {
        let live = state.withLock { s in
            guard s.phase != .ended, s.phase != .failed else { return false }
            s.attachment = attachment
            return true
        }
        guard live else { return false }
        switch attachment {
        case .publisher(let media): media.attach(peer, audio: context.wantsAudio, video: context.wantsVideo)
        case .subscriber(let media): media.attach(peer, wantsAudio: context.wantsAudio, wantsVideo: context.wantsVideo)
        }
        return true
    }

    /// `value` if it can be an SDP token (msid, cname), else a fixed one.
    static func token(_ value: String) -> String {
        let ok = !value.isEmpty && value.utf8.count <= 64
            && value.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
        return ok ? value : "tokkit"
    }
}
