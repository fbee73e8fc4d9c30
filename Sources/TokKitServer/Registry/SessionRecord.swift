import TokKitProtocol

/// A session in the registry: its description, its member connections and its streams, both in creation order.
struct SessionRecord: Sendable {
    let description: SessionDescription
    var connectionIDs: [String] = []
    var streamIDs: [String] = []
    /// The quick-start room name it was created for (`GET /room/{name}`), or nil for a session created by an admin.
    var room: String?
    /// Since when the session has had no participant (its creation, or the sweep that found it without one); nil
    /// while it has one. Hidden members (the archive recorder) are no participants. ``SessionRegistry/sweep(now:)``
    /// forgets it after ``ServerConfiguration/emptySessionTimeoutMs`` and stops its recording after
    /// ``ServerConfiguration/archiveIdleStopMs``.
    var emptySince: ContinuousClock.Instant?
}
