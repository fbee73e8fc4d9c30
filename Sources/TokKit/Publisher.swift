import Synchronization
import TokKitStreaming

/// Publishes this client's audio and video into a session, as the SDK's `OTPublisher` / `OTPublisherKit`.
///
/// Create it with its settings, attach a ``videoCapture`` (and a ``videoRender`` for the local preview), then
/// ``Session/publish(_:)`` it. While published, toggling ``publishAudio`` / ``publishVideo`` or changing
/// ``videoType`` updates the stream for everyone (``SessionEvent/streamPropertyChanged(_:_:)``).
/// ``Session/unpublish(_:)`` or disconnecting ends the stream. A publisher is in at most one session at a time
/// and can be published again after it was unpublished.
///
/// ## Threading
/// Every property may be read and written from any thread (a lock guards them). A setter changes the state and
/// the running media under that one lock (then the media's own, never the reverse), so racing setters leave them
/// agreeing; nothing blocking runs under it (a capturer swap is enqueued). Changes are sent to the server in the
/// order they were made. Delegate methods arrive on the session's delegate queue.
public final class Publisher: Sendable {
    struct State {
        var publishAudio: Bool
        var publishVideo: Bool
        var videoType: StreamVideoType
        var videoDimensions: VideoDimensions?
        var videoCapture: (any VideoCapture)?
        var videoRender: (any VideoRender)?
        weak var delegate: (any PublisherDelegate)?
        weak var session: Session?
        var stream: SessionStream?
    }

    /// The name given to the stream (at most 1000 characters); fixed once created.
    public let name: String
    /// The Opus bitrate of the published audio in bits per second, 6000...510000 (the SDK's `audioBitrate`);
    /// fixed once created. Out of range, ``Session/publish(_:)`` fails with ``SessionError/unableToPublish(_:cause:)``.
    public let audioBitrate: Int
    /// Whether silence is sent as Opus discontinuous transmission (the SDK's `enableOpusDtx`): while the
    /// microphone hears nothing, almost no audio packets go out. Fixed once created.
    public let opusDTX: Bool
    private let state: Mutex<State>
    /// The encoders and the peers they send to.
    let media = PublisherMedia()

    /// A publisher that is not published yet. Nothing starts here: the capturer starts and the encoders are made by
    /// ``Session/publish(_:)``.
    ///
    /// - Parameters:
    ///   - name: the stream's name, as the others see it (at most 1000 characters).
    ///   - publishAudio: whether audio is sent from the start (the SDK's `publishAudio`).
    ///   - publishVideo: whether video is sent from the start; needs a `videoCapture`.
    ///   - videoType: what the video shows: ``StreamVideoType/camera``, ``StreamVideoType/screen`` or
    ///     ``StreamVideoType/custom``.
    ///   - videoDimensions: the size to announce; nil takes it from the capturer's `captureSettings()` at publish.
    ///   - videoCapture: the video source; nil publishes audio only, for good.
    ///   - videoRender: where the local preview is drawn (upright I420, on the encode thread).
    ///   - audioBitrate: the Opus bitrate in bits per second, 6000...510000.
    ///   - opusDTX: whether silence is sent as Opus discontinuous transmission.
    ///   - delegate: receives the publisher's events; held weakly.
    public init(
        name: String = "", publishAudio: Bool = true, publishVideo: Bool = true, videoType: StreamVideoType = .camera,
        videoDimensions: VideoDimensions? = nil, videoCapture: (any VideoCapture)? = nil,
        videoRender: (any VideoRender)? = nil, audioBitrate: Int = 32_000, opusDTX: Bool = false,
        delegate: (any PublisherDelegate)? = nil
    ) {
        self.name = name
        self.audioBitrate = audioBitrate
        self.opusDTX = opusDTX
        state = Mutex(State(
            publishAudio: publishAudio, publishVideo: publishVideo, videoType: videoType,
            videoDimensions: videoDimensions, videoCapture: videoCapture, videoRender: videoRender,
            delegate: delegate))
    }

    deinit { eventStreams.finish() }

    /// Whether audio is sent. Changing it while published stops (resumes) encoding and sending at once and
    /// changes ``SessionStream/hasAudio`` for everyone.
    public var publishAudio: Bool {
        get { state.withLock { $0.publishAudio } }
        set {
            // The media follows under the same lock as the state: two setters racing leave both agreeing.
            change { s in
                media.setAudioEnabled(newValue)
                guard s.publishAudio != newValue else { return nil }
                s.publishAudio = newValue
                return .hasAudio(newValue)
            }
        }
    }

    /// Whether video is sent. Changing it while published stops (resumes, from a keyframe) encoding and sending
    /// at once, the preview going on, and changes ``SessionStream/hasVideo`` for everyone.
    public var publishVideo: Bool {
        get { state.withLock { $0.publishVideo } }
        set {
            change { s in
                media.setVideoEnabled(newValue)
                guard s.publishVideo != newValue else { return nil }
                s.publishVideo = newValue
                return .hasVideo(newValue)
            }
        }
    }

    /// What the video shows; `.screen` tunes the encoder for detail over motion. Changing it while published
    /// retunes the encoder and changes ``SessionStream/videoType`` for everyone.
    public var videoType: StreamVideoType {
        get { state.withLock { $0.videoType } }
        set {
            change { s in
                media.setVideoType(newValue)
                guard s.videoType != newValue else { return nil }
                s.videoType = newValue
                return .videoType(newValue)
            }
        }
    }

    /// The size of the published video. Set from the capturer's settings at publish time when nil; changing it
    /// while published changes ``SessionStream/videoDimensions`` for everyone.
    public var videoDimensions: VideoDimensions? {
        get { state.withLock { $0.videoDimensions } }
        set {
            change { s in
                guard s.videoDimensions != newValue else { return nil }
                s.videoDimensions = newValue
                return .videoDimensions(newValue)
            }
        }
    }

    /// The source of the published video (camera, screen, custom). Replacing it while published stops the old
    /// capturer and starts the new one into the same encoder: the stream and its subscribers stay (camera swap).
    /// The setter returns at once; the swap follows on the publisher's media queue (opening a camera can take a
    /// while), in the order of the settings made.
    public var videoCapture: (any VideoCapture)? {
        get { state.withLock { $0.videoCapture } }
        set {
            state.withLock { s in
                s.videoCapture = newValue
                media.replaceCapture(with: newValue)  // enqueued in the order of the setters
            }
        }
    }

    /// Where the local preview is drawn (upright I420 at the encode size, on the encode thread).
    public var videoRender: (any VideoRender)? {
        get { state.withLock { $0.videoRender } }
        set {
            state.withLock { s in
                s.videoRender = newValue
                media.setPreview(newValue)
            }
        }
    }

    /// What the encoders did lately (frame rate and bitrate over the last second, counters); zero while not
    /// published.
    public var statistics: PublisherStatistics { media.statistics }

    /// How loud the published audio is, 0 (silence) ... 1 (full scale): the peak of the captured audio, falling
    /// off by half every 50 ms after the sound stops (the value the SDK's `audioLevelUpdated` reports; read it as
    /// often as you draw a meter), with or without subscribers. 0 while `publishAudio` is off or not published.
    public var audioLevel: Float { media.audioLevel }

    /// Receives this publisher's events (held weakly).
    public var delegate: (any PublisherDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// This publisher's events from now on, the same the ``delegate`` gets and in the same order, across
    /// publishes; the stream ends when the publisher is released. Each stream keeps at most 256 unread events
    /// (the newest).
    public var events: AsyncStream<PublisherEvent> { eventStreams.makeStream() }
    let eventStreams = EventStreams<PublisherEvent>()

    /// The published stream as the server last described it; nil while not published.
    public var stream: SessionStream? { state.withLock { $0.stream } }

    /// The session it is published in, if any.
    public var session: Session? { state.withLock { $0.session } }

    // MARK: - Session side

    /// Applies `mutate`; when it reports a change and the publisher has a stream, forwards it to the session.
    private func change(_ mutate: (inout State) -> StreamPropertyChange?) {
        let forward: (Session, StreamID, StreamPropertyChange)? = state.withLock { s in
            guard let change = mutate(&s) else { return nil }
            guard let session = s.session, let streamID = s.stream?.streamID else { return nil }
            return (session, streamID, change)
        }
        if let (session, streamID, change) = forward {
            session.publisherChanged(streamID: streamID, change)
        }
    }

    /// What to announce when publishing.
    struct Description: Sendable {
        var name: String
        var hasAudio: Bool
        var hasVideo: Bool
        var videoType: StreamVideoType
        var videoDimensions: VideoDimensions?
    }

    /// Claims the publisher for `session`. Fails when it is already published (or being published) elsewhere.
    func attach(to session: Session) throws(SessionError) -> Description {
        let capture = videoCapture
        let captured = capture.map { c -> VideoDimensions in
            let f = c.captureSettings()
            return VideoDimensions(width: f.width, height: f.height)
        }
        return try state.withLock { s throws(SessionError) -> Description in
            if s.session != nil {
                throw .illegalState("the publisher is already published in a session")
            }
            s.session = session
            if s.videoDimensions == nil, let captured, captured.width > 0, captured.height > 0 {
                s.videoDimensions = captured
            }
            return Description(
                name: name, hasAudio: s.publishAudio, hasVideo: s.publishVideo, videoType: s.videoType,
                videoDimensions: s.videoDimensions)
        }
    }

    /// The frame rate to announce when publishing: the capturer's, as the encoder is driven at it (1...60 fps, 30
    /// when the capturer does not know); nil without a capturer.
    func announcedFrameRate() -> Double? {
        guard let capture = videoCapture else { return nil }
        return Double(PublisherMedia.encodeSettings(capture.captureSettings(), contentHint: .none).framesPerSecond)
    }

    /// A moderator turned the stream's audio off (the server already updated the stream).
    func applyForcedMute() {
        state.withLock { s in
            s.publishAudio = false
            media.setAudioEnabled(false)
        }
    }

    /// Starts capture and the encoders for a publish. Throws ``SessionError/unableToPublish(_:cause:)`` when the
    /// capturer cannot start.
    func startMedia() async throws(SessionError) {
        let setup = state.withLock { s in
            PublisherMedia.Setup(capture: s.videoCapture, preview: s.videoRender, publishVideo: s.publishVideo,
                                 publishAudio: s.publishAudio, videoType: s.videoType,
                                 audio: AudioEncodeSettings(bitrate: audioBitrate, dtx: opusDTX))
        }
        try await media.start(setup)
        // What changed while the media started (the setters found it not running) applies now.
        state.withLock { s in
            media.setAudioEnabled(s.publishAudio)
            media.setVideoEnabled(s.publishVideo)
            media.setPreview(s.videoRender)
            if s.videoCapture !== setup.capture { media.replaceCapture(with: s.videoCapture) }
        }
    }

    /// The server created (or updated) the stream.
    func setStream(_ stream: SessionStream) {
        state.withLock { $0.stream = stream }
    }

    /// Releases the publisher from `session` and stops its media; returns the stream it had.
    @discardableResult
    func detach(from session: Session) -> SessionStream? {
        let released: (Bool, SessionStream?) = state.withLock { s in
            guard s.session === session else { return (false, nil) }
            s.session = nil
            defer { s.stream = nil }
            return (true, s.stream)
        }
        if released.0 { media.stop() }
        return released.1
    }
}
