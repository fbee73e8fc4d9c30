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
    }

    private let state = Mutex(State())

    /// Receives `peer`'s media: video (when wanted) to the renderer, audio (when wanted) into the mix.
    func attach(_ peer: PeerConnection, wantsAudio: Bool, wantsVideo: Bool) {
        let (renderer, videoOn, audioOn) = state.withLock { ($0.renderer, $0.videoEnabled, $0.audioEnabled) }
        let video = wantsVideo ? VideoReceivePipeline(peer: peer, renderer: renderer) : nil
        video?.isEnabled = videoOn
        let audio = wantsAudio ? AudioReceivePipeline(peer: peer) : nil
        audio?.isEnabled = audioOn
        let previous = state.withLock { s in
            defer { s.peer = peer; s.video = video; s.audio = audio }
            return (s.video, s.audio)
        }
        close(previous.0, previous.1)
        if let audio { SharedAudio.add(audio) }
    }

    /// Stops receiving from `peer`: closes its pipelines (joins the decode thread) and leaves the mix.
    func detach(_ peer: PeerConnection) {
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
