import TokKitProtocol

/// A live stream: its public description, its session and its subscriptions (oldest first).
struct StreamRecord: Sendable {
    var info: StreamInfo
    let sessionID: String
    var subscriberIDs: [String] = []
}
