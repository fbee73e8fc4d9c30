/// A subscription: `subscriber` receives stream `streamID` published by `publisher` (connection ids).
struct SubscriptionRecord: Hashable, Sendable {
    let id: String
    let streamID: String
    let subscriber: String
    let publisher: String
    let subscribeToAudio: Bool?
    let subscribeToVideo: Bool?
}
