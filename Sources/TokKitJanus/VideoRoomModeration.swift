/// Moderation of a VideoRoom publisher (Janus 1.1 `moderate`): the room's moderator mutes or unmutes one of a
/// publisher's streams by its `mid`; Janus then drops (or forwards again) that stream's packets, whatever the
/// publisher keeps sending.
extension VideoRoomAdmin {
    /// Mutes (`mute` true) or unmutes the stream `mid` of publisher `participant` in `room`. `secret` is the room's
    /// secret when it has one. Throws the plugin's refusal (``JanusError/plugin(_:_:)``) as is.
    public func moderate(room: UInt64, participant: UInt64, mid: String, mute: Bool,
                         secret: String? = nil) async throws(JanusError) {
        guard participant > 0, participant < 1 << 53 else {
            throw .invalidArgument("participant id \(participant) is not in 1..<2^53")
        }
        var body: [String: JanusJSON] = ["request": "moderate", "room": try Self.roomID(room),
                                         "id": .id(participant), "mid": .string(mid), "mute": .bool(mute)]
        if let secret { body["secret"] = .string(secret) }
        let reply = try await handle.message(.object(body))
        guard reply.data["videoroom"]?.string == "success" else {
            throw .malformedReply("moderate answered \(reply.data)")
        }
    }
}
