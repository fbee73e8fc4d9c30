/// Force mute in routed sessions (Docs/Routing.md): the registry's side of ``RoutedMedia/moderateAudio(_:mute:)``.
extension SessionRegistry {
    /// Queues muting (`mute` true: a moderator's `forceMute`) or unmuting (the publisher set `hasAudio` true again)
    /// the audio of `streamID` at Janus, when the stream is routed; nothing otherwise. Never waits, never refused
    /// (the server's own command): the moderator's reply does not depend on Janus.
    func moderateRoutedAudio(_ streamID: String, mute: Bool) {
        guard let routing, let stream = streams[streamID], stream.upstreamID != nil else { return }
        routing.submit(.moderateAudio(streamID: streamID, mute: mute), session: stream.sessionID)
    }
}
