/// Force mute in routed sessions (Docs/Routing.md): the registry's side of ``RoutedMedia/moderateAudio(_:mute:)``.
extension SessionRegistry {
    /// Queues muting (`mute` true: a moderator's `forceMute`) or unmuting (the publisher set `hasAudio` true again)
    /// the audio of `streamID` at Janus, when the stream is routed; nothing otherwise. Never waits: the moderator's
    /// reply does not depend on Janus. A mute is the server's own command (never refused; only moderators and the
    /// admin API can cause one); an unmute is counted against the publisher that caused it (`from`) and refused like
    /// its other routed messages past ``RoutedMedia/maxPendingPerConnection``, so a publisher toggling its audio
    /// cannot grow the queue.
    func moderateRoutedAudio(_ streamID: String, mute: Bool, from connectionID: String? = nil) {
        guard let routing, let stream = streams[streamID], stream.upstreamID != nil else { return }
        routing.submit(.moderateAudio(streamID: streamID, mute: mute), session: stream.sessionID, from: connectionID)
    }
}
