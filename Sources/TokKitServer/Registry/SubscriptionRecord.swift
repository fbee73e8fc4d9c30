/// A subscription: `subscriber` receives stream `streamId` published by `publisher` (connection ids).
struct SubscriptionRecord: Hashable, Sendable {
    let id: String
    let streamId: String
    let subscriber: String
    let publisher: String
    let subscribeToAudio: Bool?
    let subscribeToVideo: Bool?
}
