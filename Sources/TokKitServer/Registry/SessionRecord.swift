import TokKitProtocol

/// A session in the registry: its description, its member connections and its streams, both in creation order.
struct SessionRecord: Sendable {
    let description: SessionDescription
    var connectionIds: [String] = []
    var streamIds: [String] = []
}
