import TokKitProtocol

/// A session in the registry: its description, its member connections and its streams, both in creation order.
struct SessionRecord: Sendable {
    let description: SessionDescription
    var connectionIDs: [String] = []
    var streamIDs: [String] = []
    /// The quick-start room name it was created for (`GET /room/{name}`), or nil for a session created by an admin.
    var room: String?
    /// Since when the session has had no member (its creation, or the sweep that found it empty); nil while it has
    /// members. ``SessionRegistry/sweep(now:)`` forgets it after ``ServerConfiguration/emptySessionTimeoutMs``.
    var emptySince: ContinuousClock.Instant?
}
