import Logging
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
/// ## Restarts
/// Once media has flowed, a path that goes quiet (no packet from the peer for ``silenceLimit``: both ends send RTCP
/// every second) or fails is an outage, not a failure. The publisher's end restarts: a new peer (fresh ICE
/// credentials, candidates gathered again on the interfaces that exist now, a new DTLS handshake) and a new offer
/// through the relay, repeated every ``reofferInterval`` while the outage lasts (the relay itself may be
/// reconnecting). The subscriber's end reports ``NegotiationChannel/reportReconnecting()``, answers the new offer
/// with a new peer, and reports ``NegotiationChannel/reportReconnected()`` at its first media packet. After
/// ``restartTimeout`` without media, either end fails as before (1006). A path that never carried media fails at
/// once, as before.
///
/// ## Threading
/// ``start(ice:)``, ``receive(_:ice:)``, ``end()`` and restarts run on the session's negotiation queue; the peer's
/// events are followed by one task per peer, and the watchdog is one task per link that looks four times a second
/// and hops to that queue only to restart (control plane). State is guarded by one lock with an explicit phase.
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
        /// The ICE configuration the negotiator gave (kept for restarts).
        var ice: ICEConfiguration?
        /// Media has flowed on some peer of this link: from now on a lost path is an outage to restart.
        var everConnected = false
        /// When the current outage began, if one is going on.
        var outageSince: ContinuousClock.Instant?
        /// When media began to flow on the current peer (its silence counts from then until a packet arrives).
        var flowingSince: ContinuousClock.Instant?
        /// Publisher side: when the last restart offer went out.
        var lastRestart: ContinuousClock.Instant?
        /// Restarts made (statistics, tests).
        var restarts = 0
        var watchdog: Task<Void, Never>?
    }

    let context: MediaNegotiationContext
    let channel: NegotiationChannel
    private let state = Mutex(State())

    /// Most remote candidates kept before the peer exists.
    static let maxPendingCandidates = 64
    /// No packet from the peer for this long: the path is gone (WebRTC's "not receiving" delay).
    static let silenceLimit: Duration = .milliseconds(2_500)
    /// The publisher's end offers again this often while an outage lasts.
    static let reofferInterval: Duration = .seconds(5)
    /// An outage longer than this fails the link.
    static let restartTimeout: Duration = .seconds(30)
    /// How often the watchdog looks.
    static let watchdogPeriod: Duration = .milliseconds(250)

    init(context: MediaNegotiationContext, channel: NegotiationChannel) {
        self.context = context
        self.channel = channel
    }

    var phase: Phase { state.withLock { $0.phase } }

    /// The peer connection, once created (tests and statistics).
    var peer: PeerConnection? { state.withLock { $0.peer } }

    /// The SDP offer (publisher side) or answer (subscriber side) this end sent, once sent (tests).
    var localDescription: String? { state.withLock { $0.localDescription } }

    /// Restarts made by this end (publisher) or answered (subscriber).
    var restarts: Int { state.withLock { $0.restarts } }

    /// Whether an outage is going on.
    var isReconnecting: Bool { state.withLock { $0.outageSince != nil } }

    // MARK: - Signalling (negotiation queue)

    /// Publisher side: creates the sending peer and sends the offer.
    func start(ice: ICEConfiguration) {
        state.withLock { $0.ice = ice }
        guard context.side == .publisher else { return }
        guard let session = channel.owner, let publisher = session.publisher(streamID: context.streamID) else {
            return fail(.internalError("no publisher for stream \(context.streamID)"))
        }
        var configuration = PeerConfiguration(
            ice: session.iceConfiguration(base: ice),
            audioSSRC: context.wantsAudio ? UInt32.random(in: 1...UInt32.max) : nil,
            videoSSRC: context.wantsVideo ? UInt32.random(in: 1...UInt32.max) : nil,
            cname: Self.token(context.peerConnectionID.rawValue), streamID: Self.token(context.streamID.rawValue),
            receivesAudio: false, receivesVideo: false)
        // Redundant audio (RFC 2198) between peers, used when the subscriber's end accepts it; not towards the
        // media router (Docs/Streaming.md, "Audio under loss").
        configuration.audioRedundancy = !context.isUpstream
        // A routed stream's upstream sends simulcast: one SSRC per layer, each distinct (Docs/Routing.md).
        if context.isUpstream, let main = configuration.videoSSRC {
            var ssrcs: Set<UInt32> = [main]
            for _ in 1 ..< publisher.media.enableSimulcast() {
                var ssrc = UInt32.random(in: 1...UInt32.max)
                while ssrcs.contains(ssrc) { ssrc = UInt32.random(in: 1...UInt32.max) }
                ssrcs.insert(ssrc)
                configuration.videoSimulcastSSRCs.append(ssrc)
            }
        }
        let offer: SessionDescription
        let peer: PeerConnection
        do throws(PeerError) {
            peer = try PeerConnection(configuration: configuration)
            guard install(peer, phase: .offered) else { return peer.close() }
            offer = try peer.createOffer()
        } catch {
            return fail(.internalError("could not create the offer: \(error)", cause: .init(error)))
        }
        guard attach(.publisher(publisher.media), peer) else { return }
        state.withLock { $0.localDescription = offer.sdp }
        send(.offer, offer.sdp)
        follow(peer)
    }

    /// Applies one message from the other end.
    func receive(_ message: NegotiationMessage, ice: ICEConfiguration) {
        debug("received \(message.kind)")
        state.withLock { $0.ice = ice }
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
            s.watchdog?.cancel()
            defer { s.peer = nil; s.attachment = nil; s.events = nil; s.pendingCandidates = []; s.watchdog = nil }
            return (s.peer, s.attachment, s.events)
        }
        guard let (peer, attachment, events) = taken else { return }
        Self.retire(peer, from: attachment, events: events)
    }

    /// Detaches `peer` from the media it fed or was fed by, stops following its events and closes it.
    private static func retire(_ peer: PeerConnection?, from attachment: Attachment?, events: Task<Void, Never>?) {
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

    private func answer(_ sdp: String, ice: ICEConfiguration) {
        guard context.side == .subscriber else { return }
        // A new offer on a negotiated link: the publisher restarts (see Restarts). Answer it with a new peer.
        if phase == .negotiated, let began = replacePeer() {
            state.withLock { $0.restarts += 1 }
            if began { channel.reportReconnecting() }
        }
        guard phase == .idle else { return }
        guard let session = channel.owner, let subscriber = session.subscriber(subscriberID: context.subscriberID)
        else { return }
        let offer: SessionDescription
        do throws(SDPError) { offer = try SessionDescription(parsing: sdp) } catch {
            return fail(.invalidParameter("the publisher's offer is not valid SDP: \(error)", cause: .sdp(error)))
        }
        var configuration = PeerConfiguration(ice: session.iceConfiguration(base: ice), audioSSRC: nil, videoSSRC: nil,
                                              cname: Self.token(context.subscriberID.rawValue))
        // Redundant audio when the offer has it (a TokKit publisher's or a browser's; the media router offers it
        // only for a publisher that sends it), and the audio is decoded here (an archive recorder writes Opus).
        configuration.audioRedundancy = subscriber.media.decodesMedia
        let peer: PeerConnection
        let answer: SessionDescription
        do throws(PeerError) {
            peer = try PeerConnection(configuration: configuration)
            guard install(peer, phase: .negotiated) else { return peer.close() }
            // Handlers first: media may arrive as soon as the answer is applied.
            guard attach(.subscriber(subscriber.media), peer) else { return }
            answer = try peer.createAnswer(for: offer)
        } catch {
            return fail(.internalError("could not answer the offer: \(error)", cause: .init(error)))
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
                return fail(.internalError("could not apply the answer: \(error)", cause: .init(error)))
            }
        } catch {
            return fail(.invalidParameter("the subscriber's answer is not valid SDP: \(error)", cause: .sdp(error)))
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
                guard self.isCurrent(peer) else { return }
                switch event {
                case .localCandidate(let candidate): self.send(.candidate, candidate)
                case .gatheringComplete: self.send(.endOfCandidates, "")
                case .stateChanged(.failed):
                    // After media has flowed, the watchdog restarts instead (an outage, not a failure).
                    if !self.state.withLock({ $0.everConnected }) {
                        let failure = peer.failure
                        self.fail(.connectionFailed("the media connection failed (\(failure.map { "\($0)" } ?? "ICE or DTLS"))",
                                                    cause: failure.map(SessionError.Cause.init)))
                    }
                case .stateChanged(let state):
                    self.debug("peer \(state)" + (state == .connected
                        ? peer.dtlsHandshakeDuration.map { " (DTLS handshake \($0))" } ?? "" : ""))
                    if state == .connected && self.context.side == .publisher { self.mediaFlowed() }
                case .firstMediaPacket(let kind):
                    self.debug("first \(kind) packet")
                    if self.context.side == .subscriber { self.mediaFlowed() }
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

    /// Media flows on the current peer (subscriber: its first packet; publisher: connected). The first time, the
    /// subscriber is connected (reported once per link, only while negotiated); after an outage, reconnected.
    private func mediaFlowed() {
        enum Report { case none, connected, reconnected }
        let report: Report = state.withLock { s in
            guard s.phase == .negotiated else { return .none }
            let first = !s.everConnected
            s.everConnected = true
            s.flowingSince = .now
            if s.watchdog == nil { s.watchdog = startWatchdog() }
            if s.outageSince != nil {
                s.outageSince = nil
                s.lastRestart = nil
                return context.side == .subscriber ? .reconnected : .none
            }
            guard first, context.side == .subscriber, !s.reportedConnected else { return .none }
            s.reportedConnected = true
            return .connected
        }
        switch report {
        case .none: break
        case .connected: channel.reportConnected()
        case .reconnected: channel.reportReconnected()
        }
    }

    /// Whether `peer` is this link's current peer (events of a replaced one are ignored).
    private func isCurrent(_ peer: PeerConnection) -> Bool {
        state.withLock { $0.peer === peer }
    }

    // MARK: - Restarts (negotiation queue)

    /// Looks at the current peer every ``watchdogPeriod`` until the link ends. The look itself is a few lock reads
    /// on the watchdog's task; only a restart hops to the negotiation queue.
    private func startWatchdog() -> Task<Void, Never> {
        Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.watchdogPeriod)
                guard let self else { return }
                self.tick()
            }
        }
    }

    /// One look: begins an outage when the peer went quiet or failed, restarts (publisher) or waits (subscriber),
    /// and gives up after ``restartTimeout``. Also ends an outage the old path recovered from by itself.
    func tick(now: ContinuousClock.Instant = .now) {
        enum Action { case none, reconnecting, reconnected, restart, giveUp }
        var lostBecause: String?
        let action: Action = state.withLock { s in
            guard s.phase == .negotiated || s.phase == .offered, s.everConnected, let peer = s.peer else { return .none }
            let silence = peer.timeSinceLastPacket ?? s.flowingSince.map { now - $0 } ?? .seconds(3_600)
            let receiving = peer.state == .connected && silence < Self.silenceLimit
            guard let since = s.outageSince else {
                guard !receiving else { return .none }
                s.outageSince = now
                lostBecause = "peer \(peer.state) (DTLS failure: \(peer.transportFailure.map { "\($0)" } ?? "none")), \(silence) since its last packet"
                return context.side == .publisher ? .restart : .reconnecting
            }
            // Over only when a packet came after the outage began (the last one before it is not news).
            let newPacket = peer.timeSinceLastPacket.map { $0 < now - since } ?? false
            if receiving && newPacket && s.phase == .negotiated {
                s.outageSince = nil
                s.lastRestart = nil
                return context.side == .subscriber ? .reconnected : .none
            }
            if now - since > Self.restartTimeout { return .giveUp }
            if context.side == .publisher, s.lastRestart.map({ now - $0 >= Self.reofferInterval }) ?? true {
                s.lastRestart = now  // claimed now, so the next look does not queue a second restart
                return .restart
            }
            return .none
        }
        if let lostBecause {
            channel.owner?.logger.notice("media path of \(context.side) \(context.subscriberID) lost: \(lostBecause)")
        }
        switch action {
        case .none: break
        case .reconnecting: channel.reportReconnecting()
        case .reconnected: channel.reportReconnected()
        case .restart: channel.owner?.withNegotiator { _ in self.restart(now: now) }
        case .giveUp:
            fail(.connectionFailed("the media connection was lost and not restored within \(Self.restartTimeout)",
                                   cause: peer?.failure.map(SessionError.Cause.init)))
        }
    }

    /// The local network changed under a link that carried media (negotiation queue): an outage begins now, and
    /// the publisher's end restarts at once (its offer goes out when the session is connected; see
    /// ``reofferNow()``).
    func pathLost() {
        enum Action { case none, reconnecting, restart }
        let action: Action = state.withLock { s in
            guard s.phase == .negotiated || s.phase == .offered, s.everConnected else { return .none }
            let began = s.outageSince == nil
            if began { s.outageSince = .now }
            if context.side == .publisher { return .restart }
            return began ? .reconnecting : .none
        }
        switch action {
        case .none: break
        case .reconnecting: channel.reportReconnecting()
        case .restart: restart(now: .now)
        }
    }

    /// Publisher side, during an outage (negotiation queue): offers again now rather than at the next
    /// ``reofferInterval`` (the signaling just came back, so the last offer may have been lost).
    func reofferNow() {
        let due = state.withLock { s in
            context.side == .publisher && s.everConnected && s.outageSince != nil
                && (s.phase == .negotiated || s.phase == .offered)
        }
        if due { restart(now: .now) }
    }

    /// Publisher side (negotiation queue): the media router lost the path of the peer whose offer carried
    /// `iceUfrag` (`mediaRestart`, Protocol.md 6.7 step 5). If that peer is still the current one, an outage begins
    /// and the link restarts now instead of after ``silenceLimit``; otherwise (the peer was replaced already: a
    /// duplicate or stale message, or the watchdog was first) nothing happens. Returns whether it restarted.
    @discardableResult
    func restartRequested(iceUfrag: String) -> Bool {
        let due = state.withLock { s in
            guard context.side == .publisher, s.phase == .negotiated || s.phase == .offered,
                  let offer = s.localDescription, Self.iceUfrag(in: offer) == iceUfrag
            else { return false }
            let now = ContinuousClock.now
            if s.outageSince == nil { s.outageSince = now }
            // Claimed now, as the watchdog's tick claims one: a tick in the gap before restart() runs must not
            // queue a second restart (it would replace the peer this one makes).
            s.lastRestart = now
            return true
        }
        if due {
            channel.owner?.logger.notice("media path of upstream \(context.subscriberID) lost at the media router: restarting")
            restart(now: .now)
        }
        return due
    }

    /// The first `a=ice-ufrag` value of `sdp`.
    static func iceUfrag(in sdp: String) -> String? {
        for line in sdp.split(whereSeparator: \.isNewline) where line.hasPrefix("a=ice-ufrag:") {
            // Trimmed as the server trims it (RoutedMedia+Restart), so that `a=ice-ufrag: abc` still matches.
            let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
            var value = line.dropFirst(12).drop(while: blank)
            while let last = value.last, blank(last) { value = value.dropLast() }
            return String(value)
        }
        return nil
    }

    /// Publisher side: replaces the peer and sends a new offer.
    private func restart(now: ContinuousClock.Instant) {
        guard context.side == .publisher, let ice = state.withLock({ $0.ice }), replacePeer() != nil else { return }
        state.withLock { s in
            s.lastRestart = now
            s.restarts += 1
        }
        start(ice: ice)
    }

    /// Detaches and closes the current peer and returns the link to `idle`, keeping its watchdog; an outage
    /// begins if none was going on. Returns whether it began one, or nil when the link already failed or ended.
    private func replacePeer() -> Bool? {
        let taken: (PeerConnection?, Attachment?, Task<Void, Never>?, Bool)? = state.withLock { s in
            guard s.phase == .negotiated || s.phase == .offered else { return nil }
            s.phase = .idle
            let began = s.outageSince == nil
            if began { s.outageSince = .now }
            defer { s.peer = nil; s.events = nil; s.pendingCandidates = []; s.pendingEnd = false; s.flowingSince = nil }
            return (s.peer, s.attachment, s.events, began)
        }
        guard let (peer, attachment, events, began) = taken else { return nil }
        Self.retire(peer, from: attachment, events: events)
        return began
    }

    private func send(_ kind: NegotiationMessage.Kind, _ payload: String) {
        debug("sending \(kind)")
        // Fails only when the session or the negotiation is gone, which ends this link too.
        try? channel.send(NegotiationMessage(kind: kind, payload: payload))
    }

    /// A negotiation step, logged at debug level (the timeline of a connection).
    private func debug(_ what: @autoclosure () -> String) {
        channel.owner?.logger.debug("\(context.side) \(context.subscriberID): \(what())")
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
        case .publisher(let media):
            media.attach(peer, audio: context.wantsAudio, video: context.wantsVideo, subscriberID: context.subscriberID,
                         connectionID: context.peerConnectionID)
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
