import Dispatch
import Logging
import Synchronization
import TokKitMedia
import TokKitPeer
import TokKitStreaming

/// A publisher's media while published: its ``VideoSendPipeline`` (the capturer's consumer; preview to the
/// publisher's renderer; VP8 encoded once) and its ``AudioSendPipeline`` (fed by ``SharedAudio``), which send to
/// the peer connection of every subscription.
///
/// ## Lifecycle
/// ``start(_:)`` (from ``Session/publish(_:)``) builds the pipelines and starts the capturer; ``stop()`` (unpublish,
/// stream destroyed, disconnect) stops the capturer, closes the pipelines and leaves the audio device. Start, stop
/// and capturer swaps run on one serial control queue (a V4L2 camera can take a while to open), so a publisher
/// published again after an unpublish starts after the previous stop finished; `start` awaits its turn without
/// holding a thread of the cooperative pool, and a swap only enqueues. Peers attach and detach at any time; toggles
/// apply at once.
///
/// ## Threading
/// Thread-safe: state is one lock-guarded value with an explicit ``Phase``. ``stop()`` only enqueues (it is called
/// with the session's lock held and must not wait for media threads).
final class PublisherMedia: Sendable {
    enum Phase: Sendable, Equatable { case idle, running, stopping }

    private struct State {
        var phase = Phase.idle
        var video: VideoSendPipeline?
        var audio: AudioSendPipeline?
        var capture: (any VideoCapture)?
        var peers: [ObjectIdentifier: AttachedPeer] = [:]
    }

    private let state = Mutex(State())
    /// Where start, stop and capturer swaps run, one at a time, for every publisher.
    static let control = DispatchQueue(label: "TokKit.Publisher.media")
    private static let logger = Logger(label: "TokKit.Publisher")

    var phase: Phase { state.withLock { $0.phase } }

    /// What the publisher wants when it starts.
    struct Setup: Sendable {
        var capture: (any VideoCapture)?
        var preview: (any VideoRender)?
        var publishVideo: Bool
        var publishAudio: Bool
        var videoType: StreamVideoType
        var audio: AudioEncodeSettings
    }

    /// Builds the pipelines and starts capturing. Throws ``SessionError/unableToPublish(_:cause:)`` when the capturer
    /// cannot start or the encoder settings are invalid; nothing keeps running then.
    func start(_ setup: Setup) async throws(SessionError) {
        let result: Result<Void, SessionError> = await withCheckedContinuation { continuation in
            Self.control.async { continuation.resume(returning: self.startOnControlQueue(setup)) }
        }
        try result.get()
    }

    private func startOnControlQueue(_ setup: Setup) -> Result<Void, SessionError> {
        guard phase == .idle else { return .failure(.illegalState("the publisher's media is already running")) }
        // Audio first: building it starts nothing, so a refusal leaves nothing to stop.
        let audio: AudioSendPipeline
        do throws(StreamingError) {
            audio = try AudioSendPipeline(settings: setup.audio)
        } catch {
            return .failure(.unableToPublish("audio encoder: \(error)", cause: .streaming(error)))
        }
        var video: VideoSendPipeline?
        if let capture = setup.capture {
            do throws(SessionError) {
                video = try Self.startVideo(capture, setup)
            } catch {
                return .failure(error)
            }
        }
        audio.isEnabled = setup.publishAudio
        state.withLock { s in
            s.phase = .running
            s.video = video
            s.audio = audio
            s.capture = setup.capture
        }
        SharedAudio.add(audio)
        return .success(())
    }

    /// Makes the capturer feed a new video pipeline and starts it.
    private static func startVideo(_ capture: any VideoCapture, _ setup: Setup) throws(SessionError) -> VideoSendPipeline {
        let pipeline: VideoSendPipeline
        do throws(StreamingError) {
            pipeline = try VideoSendPipeline(settings: encodeSettings(capture.captureSettings(), setup.videoType),
                                             previewRenderer: setup.preview)
        } catch {
            throw .unableToPublish("video encoder: \(error)", cause: .streaming(error))
        }
        pipeline.isEnabled = setup.publishVideo
        do throws(VideoCaptureError) {
            try startCapture(capture, into: pipeline)
        } catch {
            pipeline.close()
            throw .unableToPublish("video capture: \(error)", cause: .videoCapture(error))
        }
        return pipeline
    }

    private static func startCapture(_ capture: any VideoCapture, into pipeline: VideoSendPipeline)
        throws(VideoCaptureError)
    {
        capture.videoCaptureConsumer = pipeline
        try capture.initCapture()
        do throws(VideoCaptureError) {
            // A capturer's format may settle only in initCapture: encode at that size.
            // One read-modify-write of the size and rate only: the content hint and the simulcast layers are
            // changed by other queues (setVideoType, enableSimulcast) and must survive.
            let format = encodeSettings(capture.captureSettings(), contentHint: .none)
            try? pipeline.modifySettings { settings in
                settings.width = format.width
                settings.height = format.height
                settings.framesPerSecond = format.framesPerSecond
                settings.bitrate = format.bitrate
            }
            try capture.startCapture()
        } catch {
            capture.releaseCapture()
            throw error
        }
    }

    /// Stops capture and closes the pipelines, on the control queue. Idempotent.
    func stop() {
        let taken: (VideoSendPipeline?, AudioSendPipeline?, (any VideoCapture)?)? = state.withLock { s in
            guard s.phase == .running else { return nil }
            s.phase = .stopping
            defer { s.video = nil; s.audio = nil; s.capture = nil; s.peers = [:] }
            return (s.video, s.audio, s.capture)
        }
        guard let (video, audio, capture) = taken else { return }
        Self.control.async { [self] in
            if let capture {
                capture.stopCapture()
                capture.releaseCapture()
                capture.videoCaptureConsumer = nil
            }
            video?.close()
            if let audio {
                SharedAudio.remove(audio)
                audio.close()
            }
            state.withLock { $0.phase = .idle }
        }
    }

    // MARK: - Peers

    /// Sends to `peer` (audio and/or video, as its subscriber wants).
    func attach(_ peer: PeerConnection, audio wantsAudio: Bool, video wantsVideo: Bool, subscriberID: SubscriberID = "",
                connectionID: ConnectionID = "") {
        let pipelines: (VideoSendPipeline?, AudioSendPipeline?)? = state.withLock { s in
            guard s.phase == .running else { return nil }
            s.peers[ObjectIdentifier(peer)] = AttachedPeer(peer: peer, subscriberID: subscriberID,
                                                           connectionID: connectionID)
            return (wantsVideo ? s.video : nil, wantsAudio ? s.audio : nil)
        }
        guard let (video, audio) = pipelines else { return }
        try? video?.attach(peer)  // closed meanwhile: the publisher is stopping
        try? audio?.attach(peer)
    }

    /// Stops sending to `peer`.
    func detach(_ peer: PeerConnection) {
        let pipelines: (VideoSendPipeline?, AudioSendPipeline?) = state.withLock { s in
            s.peers[ObjectIdentifier(peer)] = nil
            return (s.video, s.audio)
        }
        pipelines.0?.detach(peer)
        pipelines.1?.detach(peer)
    }

    /// Routed streams: encodes video in up to three simulcast layers, each with three temporal layers
    /// (``VideoEncodeSettings/temporalLayers``), from now on (``SimulcastLayout``); returns
    /// how many the encode size allows (1 when there is no video pipeline), the number of SSRCs the upstream
    /// peer must offer. That count then stays for the life of the pipeline whatever size a new capturer brings
    /// (``VideoEncodeSettings/simulcastLayersExact``). A peer with fewer layers gets the top ones.
    func enableSimulcast() -> Int {
        guard let video = state.withLock({ $0.video }) else { return 1 }
        var count = 1
        try? video.modifySettings { settings in
            // Each layer with three temporal layers, as browsers send (`preferredFrameRate` through the router).
            settings.temporalLayers = 3
            guard !settings.simulcastLayersExact else {  // already announced: keep that count
                count = settings.simulcastLayers
                return
            }
            settings.simulcastLayers = SimulcastLayout.maximumLayers
            count = settings.simulcastLayout.count
            // From now on exactly that many, whatever size a new capturer brings (one per announced SSRC).
            settings.simulcastLayers = count
            settings.simulcastLayersExact = true
        }
        return count
    }

    /// Peers attached now.
    var peerCount: Int { state.withLock { $0.peers.count } }

    /// One subscription's peer and whose it is.
    struct AttachedPeer {
        let peer: PeerConnection
        let subscriberID: SubscriberID
        let connectionID: ConnectionID
    }

    // MARK: - Publisher properties

    func setVideoEnabled(_ enabled: Bool) { state.withLock { $0.video }?.isEnabled = enabled }
    func setAudioEnabled(_ enabled: Bool) { state.withLock { $0.audio }?.isEnabled = enabled }
    func setPreview(_ renderer: (any VideoRender)?) { state.withLock { $0.video }?.previewRenderer = renderer }

    /// Retunes the encoder for `videoType` (`.screen`: detail over motion).
    func setVideoType(_ videoType: StreamVideoType) {
        guard let video = state.withLock({ $0.video }) else { return }
        try? video.modifySettings { $0.contentHint = Self.contentHint(videoType) }
    }

    /// Replaces the capturer while published: the old one stops, the new one feeds the same pipeline (same
    /// stream, same peers; the encoder follows a new size). A new capturer that cannot start leaves the stream
    /// without frames and is reported in the log. Enqueued on the control queue (after a start or stop already
    /// asked for); returns at once.
    func replaceCapture(with new: (any VideoCapture)?) {
        Self.control.async { [self] in
            let current: (VideoSendPipeline?, (any VideoCapture)?)? = state.withLock { s in
                guard s.phase == .running else { return nil }
                defer { s.capture = new }
                return (s.video, s.capture)
            }
            guard let (video, old) = current, old !== new else { return }
            if let old {
                old.stopCapture()
                old.releaseCapture()
                old.videoCaptureConsumer = nil
            }
            guard let new, let video else { return }
            do throws(VideoCaptureError) {
                try Self.startCapture(new, into: video)
                video.requestKeyframe()
            } catch {
                Self.logger.error("the new video capturer could not start: \(error)")
            }
        }
    }

    /// What the video encoder encodes now; nil without a video pipeline.
    var videoSettings: VideoEncodeSettings? { state.withLock { $0.video }?.settings }

    /// What the running audio encoder was built with; nil while not running.
    var audioSettings: AudioEncodeSettings? { state.withLock { $0.audio?.settings } }

    /// The level of the microphone as published (0...1); 0 while muted or not published.
    var audioLevel: Float { state.withLock { $0.audio }?.level.level ?? 0 }

    /// Counters and rates of both pipelines.
    var statistics: PublisherStatistics {
        let (video, audio, peers) = state.withLock { ($0.video, $0.audio, Array($0.peers.values)) }
        let subscribers = peers.map { p in
            PublisherStatistics.Subscription(subscriberID: p.subscriberID, connectionID: p.connectionID,
                                             videoTrack: p.peer.statistics(.video),
                                             audioTrack: p.peer.statistics(.audio),
                                             candidatePair: p.peer.selectedCandidatePair)
        }.sorted { $0.subscriberID < $1.subscriberID }
        return PublisherStatistics(video: video?.statistics ?? VideoSendStatistics(),
                                   audio: audio?.statistics ?? AudioSendStatistics(), subscriptions: subscribers)
    }

    // MARK: - Settings

    static func contentHint(_ videoType: StreamVideoType) -> VideoContentHint {
        switch videoType {
        case .screen: .detail
        case .camera: .motion
        case .custom: .none
        }
    }

    static func encodeSettings(_ format: VideoFormat, _ videoType: StreamVideoType) -> VideoEncodeSettings {
        encodeSettings(format, contentHint: contentHint(videoType))
    }

    /// The capture size rounded down to even (at least 2x2, at most 4096), its rate (1...60 fps, 30 when unknown).
    static func encodeSettings(_ format: VideoFormat, contentHint: VideoContentHint) -> VideoEncodeSettings {
        func even(_ v: Int) -> Int { min(4096, max(2, v & ~1)) }
        let rate = format.estimatedFramesPerSecond
        let fps = rate.isFinite && rate >= 1 ? min(60, Int(rate.rounded())) : 30
        return VideoEncodeSettings(width: even(format.width), height: even(format.height), framesPerSecond: fps,
                                   contentHint: contentHint)
    }
}
