import Synchronization
import TokKitPeer
import TokKitStreaming

/// A subscriber's media while subscribed: the ``VideoReceivePipeline`` that decodes the peer's video to the
/// subscriber's renderer and the ``AudioReceivePipeline`` mixed into the process's audio (``SharedAudio``).
///
/// ## Threading
/// ``attach(_:wantsAudio:wantsVideo:renderer:)`` and ``detach(_:)`` come from the negotiation queue; toggles from
/// any thread. State is lock-guarded; closing the pipelines happens outside the lock.
final class SubscriberMedia: Sendable {
    private struct State {
        var peer: PeerConnection?
        var video: VideoReceivePipeline?
        var audio: AudioReceivePipeline?
        var videoEnabled = true
        var audioEnabled = true
        var renderer: (any VideoRender)?
        /// Set for a subscriber that takes its media encoded (no pipelines then).
        var receiver: (any EncodedMediaReceiver)?
        var source: EncodedMediaSource?
    }

    private let state = Mutex(State())

    /// Receives `peer`'s media: video (when wanted) to the renderer, audio (when wanted) into the mix.
    func attach(_ peer: PeerConnection, wantsAudio: Bool, wantsVideo: Bool) {
        if let receiver = state.withLock({ $0.receiver }) {
            return attachEncoded(peer, to: receiver, wantsAudio: wantsAudio, wantsVideo: wantsVideo)
        }
        let (renderer, videoOn, audioOn) = state.withLock { ($0.renderer, $0.videoEnabled, $0.audioEnabled) }
        let video = wantsVideo ? VideoReceivePipeline(peer: peer, renderer: renderer) : nil
        video?.isEnabled = videoOn
        let audio = wantsAudio ? AudioReceivePipeline(peer: peer) : nil
        audio?.isEnabled = audioOn
        // Lip sync: the audio waits for the video's playout delay (Docs/Streaming.md, "Lip sync").
        audio?.synchronize(with: video)
        let previous = state.withLock { s in
            defer { s.peer = peer; s.video = video; s.audio = audio }
            return (s.video, s.audio)
        }
        close(previous.0, previous.1)
        if let audio { SharedAudio.add(audio) }
    }

    /// Whether the media is decoded here (no ``EncodedMediaReceiver``): only then can the subscriber take RFC 2198
    /// redundant audio, which the pipeline splits; a receiver (the archive recorder) gets plain Opus.
    var decodesMedia: Bool { state.withLock { $0.receiver == nil } }

    /// Makes the subscriber hand its media to `receiver` encoded, instead of decoding it. Before any attach.
    func setReceiver(_ receiver: any EncodedMediaReceiver) {
        state.withLock { $0.receiver = receiver }
    }

    /// Hands `peer`'s packets of the wanted kinds to `receiver`, after telling it of the new source (and of the end
    /// of the one it replaces).
    private func attachEncoded(_ peer: PeerConnection, to receiver: any EncodedMediaReceiver, wantsAudio: Bool,
                               wantsVideo: Bool) {
        let source = EncodedMediaSource(peer: peer)
        let previous = state.withLock { s in
            defer { s.peer = peer; s.source = source }
            return s.peer.map { ($0, s.source) }
        }
        if let (old, oldSource) = previous { stopEncoded(old, oldSource, receiver) }
        receiver.encodedMediaDidStart(source)
        for (kind, wanted) in [(MediaKind.audio, wantsAudio), (.video, wantsVideo)] where wanted {
            peer.setReceiveHandler(kind) { [receiver] packet in receiver.receive(packet, kind: kind) }
        }
    }

    private func stopEncoded(_ peer: PeerConnection, _ source: EncodedMediaSource?, _ receiver: any EncodedMediaReceiver) {
        peer.setReceiveHandler(.audio, nil)
        peer.setReceiveHandler(.video, nil)
        if let source { receiver.encodedMediaDidStop(source) }
    }

    /// Stops receiving from `peer`: closes its pipelines (joins the decode thread) and leaves the mix.
    func detach(_ peer: PeerConnection) {
        let encoded: (EncodedMediaSource?, any EncodedMediaReceiver)? = state.withLock { s in
            guard s.peer === peer, let receiver = s.receiver else { return nil }
            defer { s.peer = nil; s.source = nil }
            return (s.source, receiver)
        }
        if let (source, receiver) = encoded { return stopEncoded(peer, source, receiver) }
        let taken: (VideoReceivePipeline?, AudioReceivePipeline?)? = state.withLock { s in
            guard s.peer === peer else { return nil }
            defer { s.peer = nil; s.video = nil; s.audio = nil }
            return (s.video, s.audio)
        }
        if let (video, audio) = taken { close(video, audio) }
    }

    private func close(_ video: VideoReceivePipeline?, _ audio: AudioReceivePipeline?) {
        video?.close()
        if let audio {
            SharedAudio.remove(audio)
            audio.close()
        }
    }

    /// The peer media arrives on, while attached.
    var peer: PeerConnection? { state.withLock { $0.peer } }

    /// Decoding of video on or off (subscribeToVideo).
    func setVideoEnabled(_ enabled: Bool) {
        state.withLock { s in
            s.videoEnabled = enabled
            return s.video
        }?.isEnabled = enabled
    }

    /// Decoding of audio on or off (subscribeToAudio).
    func setAudioEnabled(_ enabled: Bool) {
        state.withLock { s in
            s.audioEnabled = enabled
            return s.audio
        }?.isEnabled = enabled
    }

    /// Where decoded video goes.
    func setRenderer(_ renderer: (any VideoRender)?) {
        state.withLock { s in
            s.renderer = renderer
            return s.video
        }?.renderer = renderer
    }

    /// Video frames decoded so far by the current pipeline; nil when video is not decoded here (not wanted, turned
    /// off, or taken encoded).
    var videoFramesDecoded: Int? {
        guard let video = state.withLock({ s in s.videoEnabled ? s.video : nil }) else { return nil }
        return video.statistics.framesDecoded
    }

    /// The level of the audio being played (0...1); 0 without audio.
    var audioLevel: Float { state.withLock { $0.audio }?.level.level ?? 0 }

    /// Counters and rates of both pipelines and of the RTP streams.
    var statistics: SubscriberStatistics {
        let (peer, video, audio) = state.withLock { ($0.peer, $0.video, $0.audio) }
        return SubscriberStatistics(
            video: video?.statistics ?? VideoReceiveStatistics(), audio: audio?.statistics ?? AudioReceiveStatistics(),
            videoTrack: peer?.statistics(.video) ?? TrackStatistics(), audioTrack: peer?.statistics(.audio) ?? TrackStatistics(),
            candidatePair: peer?.selectedCandidatePair)
    }
}
