/// Everything a ``Session`` reports, in the order it happened, as one enum: the ``SessionDelegate`` methods
/// as values, for `for await event in session.events`.
///
/// The stream and the delegate see the same events in the same order.
public enum SessionEvent: Sendable {
    /// The session is connected; the argument is this client's own connection (`sessionDidConnect`).
    case connected(Connection)
    /// The session is disconnected: by ``Session/disconnect()``, by the server, or after reconnecting failed
    /// (`sessionDidDisconnect`). The last event of a connection.
    case disconnected
    /// Connecting failed, or the session failed while connected (`session:didFailWithError:`).
    case failed(SessionError)
    /// Another client joined (`session:connectionCreated:`). Clients already present when this one connected
    /// are reported too, right after ``connected(_:)``, in the order they joined.
    case connectionCreated(Connection)
    /// Another client left (`session:connectionDestroyed:`), after its streams were destroyed.
    case connectionDestroyed(Connection)
    /// Another client published a stream (`session:streamCreated:`), including those already published when
    /// this one connected.
    case streamCreated(SessionStream)
    /// A stream of another client ended (`session:streamDestroyed:`).
    case streamDestroyed(SessionStream)
    /// A property of a stream changed: the stream as it is now and what changed. Reported for this client's
    /// own streams too.
    case streamPropertyChanged(SessionStream, StreamPropertyChange)
    /// A signal arrived (`session:receivedSignalType:fromConnection:withString:`). `from` is nil when the server
    /// itself sent it.
    case signalReceived(type: String, data: String, from: Connection?)
    /// Archiving (recording) of the session started.
    case archiveStarted(id: ArchiveID, name: String)
    /// Archiving of the session stopped.
    case archiveStopped(id: ArchiveID)
    /// The WebSocket dropped; the session is trying to restore it (`sessionDidBeginReconnecting`).
    case reconnecting
    /// The session was restored with the same connection (`sessionDidReconnect`).
    case reconnected
    /// A moderator muted (or unmuted) the session (`session:muteForced:`).
    case muteForced(MuteForcedInfo)
}
