import Synchronization
import TokKitProtocol

/// Receives one stream of another client, as the SDK's `OTSubscriber` / `OTSubscriberKit`.
///
/// Create it for a ``SessionStream`` from ``SessionEvent/streamCreated(_:)`` (or ``Session/streams``), set a
/// ``videoRender``, then ``Session/subscribe(_:)``. The session asks the server to subscribe, which tells the
/// publisher's client; the two ``MediaNegotiator``s then negotiate through the server, and the delegate's
/// `subscriberDidConnect(toStream:)` follows once media flows. ``Session/unsubscribe(_:)``, the stream ending or the
/// session disconnecting ends it (`subscriberDidDisconnect(fromStream:)`). A subscriber is used once.
///
/// ## Threading
/// Every property may be read and written from any thread. Delegate methods arrive on the session's delegate
/// queue. ``videoRender`` is called by the media layer on its own thread.
public final class Subscriber: Sendable {
    /// Where the subscriber is in its life.
    enum Phase: Sendable, Equatable {
        case idle
        case subscribing
        case negotiating(subscriberID: SubscriberID)
        case connected(subscriberID: SubscriberID)
        case ended
    }

    struct State {
        var stream: SessionStream
        var subscribeToAudio: Bool
        var subscribeToVideo: Bool
        var videoRender: (any VideoRender)?
        weak var delegate: (any SubscriberDelegate)?
        weak var session: Session?
        /// The session it was subscribed in, once ended (so that unsubscribing it there is not an error).
        weak var endedSession: Session?
        var phase: Phase = .idle
        /// Media was lost after connecting and is being restored.
        var reconnecting = false
        var preferredResolution: VideoDimensions?
        var preferredFrameRate: Double?

        /// Where preferences go now: the session and the server's id, once the subscription was accepted.
        var preferencesTarget: (Session, SubscriberID)? {
            switch phase {
            case .negotiating(let id), .connected(let id): session.map { ($0, id) }
            case .idle, .subscribing, .ended: nil
            }
        }
    }

    private let state: Mutex<State>
    /// The decoders and the peer they receive from.
    let media = SubscriberMedia()
    /// Sends ``preferredResolution`` and ``preferredFrameRate`` to the server, in order, the latest last.
    let preferencesSender = SubscriberPreferencesSender()
    /// Lowers a routed subscription's layer to what its downlink carries (and back up).
    let layerAdapter = SubscriberLayerAdapter()

    /// A subscriber for `stream` that is not subscribed yet; ``Session/subscribe(_:)`` starts it.
    ///
    /// - Parameters:
    ///   - stream: the stream to receive, from ``SessionEvent/streamCreated(_:)`` or ``Session/streams``.
    ///   - subscribeToAudio: whether audio is decoded and played from the start.
    ///   - subscribeToVideo: whether video is decoded from the start.
    ///   - videoRender: where decoded video is drawn, on the subscriber's decode thread.
    ///   - delegate: receives the subscriber's events; held weakly.
    public init(stream: SessionStream, subscribeToAudio: Bool = true, subscribeToVideo: Bool = true,
                videoRender: (any VideoRender)? = nil, delegate: (any SubscriberDelegate)? = nil) {
        state = Mutex(State(
            stream: stream, subscribeToAudio: subscribeToAudio, subscribeToVideo: subscribeToVideo,
            videoRender: videoRender, delegate: delegate))
        media.setRenderer(videoRender)
        media.setVideoEnabled(subscribeToVideo)
        media.setAudioEnabled(subscribeToAudio)
    }

    /// A subscriber that takes `stream`'s media encoded, as RTP packets to `receiver`, and decodes nothing (the
    /// archive recorder's). Toggling ``subscribeToAudio`` or ``subscribeToVideo`` later changes nothing: what is
    /// asked for at subscription is what arrives.
    @_spi(Recording) public convenience init(
        stream: SessionStream, receiver: any EncodedMediaReceiver, subscribeToAudio: Bool = true,
        subscribeToVideo: Bool = true, delegate: (any SubscriberDelegate)? = nil
    ) {
        self.init(stream: stream, subscribeToAudio: subscribeToAudio, subscribeToVideo: subscribeToVideo,
                  delegate: delegate)
        media.setReceiver(receiver)
    }

    deinit { eventStreams.finish() }

    /// The stream, as the session last described it (property changes update it).
    public var stream: SessionStream { state.withLock { $0.stream } }

    /// Whether audio is wanted. Local: turning it off stops decoding and mixing it (silence), on resumes.
    public var subscribeToAudio: Bool {
        get { state.withLock { $0.subscribeToAudio } }
        set {
            state.withLock { $0.subscribeToAudio = newValue }
            media.setAudioEnabled(newValue)
        }
    }

    /// Whether video is wanted. Turning it off (on) while subscribed reports `subscriberVideoDisabled`
    /// (`Enabled`) with reason ``SubscriberVideoEventReason/subscriberPropertyChanged`` when the stream has video.
    public var subscribeToVideo: Bool {
        get { state.withLock { $0.subscribeToVideo } }
        set {
            let notify: Session? = state.withLock { s in
                guard s.subscribeToVideo != newValue else { return nil }
                s.subscribeToVideo = newValue
                media.setVideoEnabled(newValue)
                guard s.stream.hasVideo, s.phase.isActive else { return nil }
                return s.session
            }
            notify?.subscriberVideoChanged(self, enabled: newValue, reason: .subscriberPropertyChanged)
        }
    }

    /// The video size this subscriber would like (the SDK's `preferredResolution`); nil: no preference (the full
    /// size). Settable at any time; sent to the server (Protocol.md 6.3, `subscriberPreferences`; one request at a
    /// time, the latest value last; a refusal is reported as ``SubscriberEvent/failed(_:)``). In a routed
    /// session the media router then forwards the largest simulcast layer of the stream that fits inside it (the
    /// smallest when none does), for this subscriber only; in a relayed session it is accepted and changes nothing
    /// (the publisher encodes one size for everyone). Docs/Routing.md, "Simulcast".
    public var preferredResolution: VideoDimensions? {
        get { state.withLock { $0.preferredResolution } }
        set {
            updatePreferences { $0.preferredResolution = newValue }
        }
    }

    /// The frame rate this subscriber would like (the SDK's `preferredFrameRate`); nil: no preference (every
    /// frame). Sent to the server like ``preferredResolution``. In a routed session the media router then forwards
    /// only the temporal layers needed for it, for this subscriber only: a TokKit publisher's routed upstream (and
    /// Chromium's VP8 simulcast) encodes three, a quarter, a half and all of its frames; the server compares the
    /// preference with the rate the publisher announced (a TokKit publisher its capturer's, a browser its camera's;
    /// 30 fps when it announced none): at most a quarter of it → a quarter, at most a half → a half, more → all. In a
    /// relayed session it is accepted and changes nothing. Docs/Routing.md, "Temporal layers".
    public var preferredFrameRate: Double? {
        get { state.withLock { $0.preferredFrameRate } }
        set {
            updatePreferences { $0.preferredFrameRate = newValue }
        }
    }

    /// The size this subscriber's downlink limits it to, below its ``preferredResolution``, in a routed session;
    /// nil when not limited. Once a second a routed subscriber looks at its video's packet loss: when the link cannot
    /// carry the simulcast layer it gets (loss of 8 % or more, or packets arriving while not one frame is decoded),
    /// it asks the server for the next smaller layer, and after
    /// a clean period (6 s, doubling after each attempt that lost packets again, up to 60 s) tries the next larger
    /// one, never above ``preferredResolution``. Docs/Routing.md, "Simulcast: the downlink lowers the layer".
    public var bandwidthLimitedResolution: VideoDimensions? { layerAdapter.limit }

    /// Records a preference under the lock and, once subscribed, has the sender send the current preferences.
    private func updatePreferences(_ change: (inout State) -> Void) {
        let target = state.withLock { s in
            change(&s)
            // Under this lock, so that the adapter never keeps an older preference than the last one set.
            layerAdapter.update(published: s.stream.videoDimensions, preferred: s.preferredResolution)
            return s.preferencesTarget
        }
        if let (session, id) = target { preferencesSender.schedule(session: session, subscriber: self, id: id) }
    }

    /// Sends the current preferences again (the downlink's limit changed), once subscribed.
    func resendPreferences() {
        if let (session, id) = state.withLock({ $0.preferencesTarget }) {
            preferencesSender.schedule(session: session, subscriber: self, id: id)
        }
    }

    /// The first offer of the media router arrived: the subscription is routed, its layer follows its downlink.
    func routedOfferArrived() {
        state.withLock { s -> Void in
            layerAdapter.update(published: s.stream.videoDimensions, preferred: s.preferredResolution)
        }
        layerAdapter.start(self)
    }

    /// The `subscriberPreferences` message stating both preferences now (`preferredResolution` lowered to the
    /// downlink's limit, if any); nil when neither is set.
    func preferencesMessage(_ id: SubscriberID) -> ClientMessage {
        let (preferred, rate) = state.withLock { ($0.preferredResolution, $0.preferredFrameRate) }
        let resolution = layerAdapter.effectiveResolution(preferred)
        return .subscriberPreferences(.init(subscriberID: id.rawValue, preferredResolution: resolution?.wire,
                                            preferredFrameRate: rate))
    }

    /// Whether a preference was set (sent once the server accepts the subscription).
    var hasPreferences: Bool { state.withLock { $0.preferredResolution != nil || $0.preferredFrameRate != nil } }

    /// Where decoded video is drawn (upright I420, on the subscriber's decode thread).
    public var videoRender: (any VideoRender)? {
        get { state.withLock { $0.videoRender } }
        set {
            state.withLock { $0.videoRender = newValue }
            media.setRenderer(newValue)
        }
    }

    /// What arrives and is decoded (frame rate and bitrate over the last second, size, packets, loss, jitter);
    /// zero before the media is negotiated.
    public var statistics: SubscriberStatistics { media.statistics }

    /// How loud the stream's audio is as it plays, 0 (silence) ... 1 (full scale): the peak of the decoded audio,
    /// falling off by half every 50 ms after the sound stops (the value the SDK's `audioLevelUpdated` reports; read
    /// it as often as you draw a meter). 0 while `subscribeToAudio` is off or nothing arrives.
    public var audioLevel: Float { media.audioLevel }

    /// Receives this subscriber's events (held weakly).
    public var delegate: (any SubscriberDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// This subscriber's events from now on, the same the ``delegate`` gets and in the same order; the stream ends
    /// after ``SubscriberEvent/disconnected``. Each stream keeps at most 256 unread events (the newest).
    public var events: AsyncStream<SubscriberEvent> { eventStreams.makeStream() }
    let eventStreams = EventStreams<SubscriberEvent>()

    /// The session it subscribes in, while subscribed.
    public var session: Session? { state.withLock { $0.session } }

    /// The server's id for this subscription, once the server accepted it.
    public var subscriberID: SubscriberID? {
        state.withLock { s in
            switch s.phase {
            case .negotiating(let id), .connected(let id): id
            case .idle, .subscribing, .ended: nil
            }
        }
    }

    /// Whether media negotiation completed (`subscriberDidConnect(toStream:)` was reported).
    public var isConnected: Bool {
        state.withLock { if case .connected = $0.phase { true } else { false } }
    }

    // MARK: - Session side

    /// Claims the subscriber for `session`; it can be subscribed once.
    func attach(to session: Session) throws(SessionError) -> (streamID: StreamID, audio: Bool, video: Bool) {
        try state.withLock { s throws(SessionError) in
            guard s.phase == .idle else { throw .illegalState("a subscriber can be subscribed only once") }
            s.phase = .subscribing
            s.session = session
            return (s.stream.streamID, s.subscribeToAudio, s.subscribeToVideo)
        }
    }

    /// The server accepted the subscription.
    func accepted(subscriberID: SubscriberID) -> Bool {
        state.withLock { s in
            guard s.phase == .subscribing else { return false }
            s.phase = .negotiating(subscriberID: subscriberID)
            return true
        }
    }

    /// The negotiator reported media flowing; true the first time.
    func markConnected() -> Bool {
        state.withLock { s in
            guard case .negotiating(let id) = s.phase else { return false }
            s.phase = .connected(subscriberID: id)
            return true
        }
    }

    /// A connected subscriber's media was lost (`true`) or restored (`false`); true when that changes something.
    func setReconnecting(_ reconnecting: Bool) -> Bool {
        state.withLock { s in
            guard case .connected = s.phase, s.reconnecting != reconnecting else { return false }
            s.reconnecting = reconnecting
            return true
        }
    }

    /// Whether media was lost and is being restored (between ``SubscriberEvent/reconnecting`` and
    /// ``SubscriberEvent/reconnected``).
    public var isReconnecting: Bool { state.withLock { $0.reconnecting } }

    /// Ends the subscription; returns the phase it was in (nil if it had already ended).
    func end() -> Phase? {
        layerAdapter.stop()
        return state.withLock { s in
            guard s.phase != .ended else { return nil }
            defer {
                s.phase = .ended
                s.endedSession = s.session
                s.session = nil
            }
            return s.phase
        }
    }

    /// Whether this subscriber was subscribed in `session` and the session ended it (its media failed, its
    /// stream went away); not after the app unsubscribed it (``forgetEndedSession()``).
    func hasEnded(in session: Session) -> Bool {
        state.withLock { $0.phase == .ended && $0.endedSession === session }
    }

    /// The app unsubscribed it: unsubscribing it again is an error.
    func forgetEndedSession() {
        state.withLock { $0.endedSession = nil }
    }

    /// Applies a stream update. Returns the video reason to report when the effective video changed.
    /// A new announced size gives the layer adapter new layer sizes; the preferences are sent again when a limit is
    /// in force (in the new sizes) or the new sizes lifted it.
    func update(stream: SessionStream) -> Bool? {
        let (reason, resend) = state.withLock { s -> (Bool?, Bool) in
            let before = s.stream
            s.stream = stream
            var resend = false
            if before.videoDimensions != stream.videoDimensions {
                // A limit in force is asked for in the new sizes; one the new sizes lifted is withdrawn.
                let lifted = layerAdapter.update(published: stream.videoDimensions, preferred: s.preferredResolution)
                resend = lifted || layerAdapter.limit != nil
            }
            guard before.hasVideo != stream.hasVideo, s.subscribeToVideo, s.phase.isActive else { return (nil, resend) }
            return (stream.hasVideo, resend)
        }
        if resend { resendPreferences() }
        return reason
    }
}

extension Subscriber.Phase {
    /// Accepted by the server and not ended.
    var isActive: Bool {
        switch self {
        case .negotiating, .connected: true
        case .idle, .subscribing, .ended: false
        }
    }
}
