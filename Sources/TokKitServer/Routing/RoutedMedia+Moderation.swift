import Logging
import TokKitJanus

/// Force mute reaching Janus (Docs/Routing.md): a routed stream's audio is muted at the VideoRoom (`moderate`), so
/// a publisher client that ignores `muteForced` and keeps sending reaches no subscriber; it is unmuted when the
/// publisher turns its audio back on (`hasAudio` true again).
extension RoutedMedia {
    /// Mutes or unmutes the audio of `streamID` at Janus. The wish is kept on the upstream; it is sent only when
    /// the upstream is published (feed, room and audio `mid` known), and an unmute only after a mute. A stream whose
    /// publisher has not offered yet has no upstream: a mute is kept for it (``mutedBeforeOffer``) and applied once
    /// Janus answers its first offer; an unmute meanwhile drops it. A refusal is logged, never reported to a client
    /// (the moderator had its reply already).
    func moderateAudio(_ streamID: String, mute: Bool) async {
        guard let upstream = upstreams[streamID] else {
            if mute { mutedBeforeOffer.insert(streamID) } else { mutedBeforeOffer.remove(streamID) }
            return
        }
        guard upstream.audioMuted != mute || mute else { return }
        upstreams[streamID]?.audioMuted = mute
        guard let publisher = upstream.publisher, let feed = upstream.feed, let mid = upstream.audioMid,
              let room = rooms[upstream.sessionID]
        else {
            logger.debug("routed audio moderation not sent: upstream not published yet",
                         metadata: ["stream_id": "\(streamID)", "mute": "\(mute)"])
            return
        }
        do throws(JanusError) {
            try await VideoRoomAdmin(handle: publisher.handle, adminKey: nil)
                .moderate(room: room, participant: feed, mid: mid, mute: mute)
        } catch {
            logger.notice("janus refused to moderate a routed stream's audio",
                          metadata: ["stream_id": "\(streamID)", "mute": "\(mute)", "error": "\(error)"])
        }
    }

    /// The `a=mid` of the first audio m-section of `sdp`; nil when it has none (or no audio).
    static func audioMid(in sdp: String) -> String? {
        var inAudio = false
        for line in sdp.split(whereSeparator: \.isNewline) {  // "\r\n" is one Character
            if line.hasPrefix("m=") {
                if inAudio { return nil }
                inAudio = line.hasPrefix("m=audio ")
            } else if inAudio, line.hasPrefix("a=mid:") {
                let mid = line.dropFirst(6)
                return mid.isEmpty || mid.utf8.count > 64 ? nil : String(mid)
            }
        }
        return nil
    }
}
