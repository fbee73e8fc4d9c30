import TokKitProtocol

/// A live stream: its public description, its session and its subscriptions (oldest first).
struct StreamRecord: Sendable {
    var info: StreamInfo
    let sessionID: String
    var subscriberIDs: [String] = []
    /// Routed streams: the `subscriberId` of the publisher's upstream negotiation with the media router
    /// (Docs/Protocol.md 6.7); nil for relayed streams.
    var upstreamID: String?
}
