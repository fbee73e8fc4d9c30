import Foundation
/// Faster failover (Docs/Routing.md, "Failover"): when the instance carrying a session is lost, the publishers of
/// its moving upstreams are told to offer again at once (`mediaRestart`, Protocol.md 6.7 step 5) instead of
/// waiting for their media watchdogs (2.5 s of silence), which stay the fallback.
extension RoutedMedia {
    /// Sends `mediaRestart` to the publisher of each upstream in `moving` that Janus had answered (its offer's ICE
    /// ufrag known). The ufrag names the publisher's peer connection: a client restarts only if that peer is still
    /// its current one, so the message is idempotent per peer (a duplicate, or one overtaken by the client's own
    /// watchdog restart, does nothing).
    func askToRestart(_ moving: [String: Upstream], reason: String) {
        for (streamID, upstream) in moving {
            guard let ufrag = upstream.iceUfrag else { continue }
            deliver.yield(.mediaRestart(connectionID: upstream.connectionID, streamID: streamID,
                                  upstreamID: upstream.upstreamID, iceUfrag: ufrag, reason: reason))
        }
    }

    /// The first `a=ice-ufrag` of `sdp` (session or media level); nil without one, or one that is empty or longer
    /// than 256 bytes (RFC 8839 allows 4...256 characters).
    static func iceUfrag(in sdp: String) -> String? {
        for line in sdp.split(whereSeparator: \.isNewline) where line.hasPrefix("a=ice-ufrag:") {
            // Trimmed at both ends, as the clients trim the ufrag of their own offer (MediaLink, tokkit.js).
            let ufrag = line.dropFirst(12).trimmingCharacters(in: .whitespaces)
            return ufrag.isEmpty || ufrag.utf8.count > 256 ? nil : String(ufrag)
        }
        return nil
    }
}
