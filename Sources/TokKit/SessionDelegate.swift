/// Receives a ``Session``'s events, as the SDK's `OTSessionDelegate`. Every method is optional: the protocol
/// extension gives each an empty default.
///
/// ## Threading
/// All methods are called on the session's ``Session/delegateQueue``, a serial `DispatchQueue` (by default a
/// private one per session, never the main queue unless you pass it), one at a time, in the order the events
/// happened. They see the same sequence as ``Session/events``. The session holds its delegate weakly.
public protocol SessionDelegate: AnyObject, Sendable {
    /// The session connected (``Session/connect(token:)`` succeeded); the other connections and streams follow as
    /// ``session(_:connectionCreated:)`` and ``session(_:streamCreated:)``.
    func sessionDidConnect(_ session: Session)
    /// The session is no longer connected: after ``Session/disconnect()``, when the server ended it (a moderator's
    /// force-disconnect) or after reconnecting failed. Its publishers and subscribers have ended.
    func sessionDidDisconnect(_ session: Session)
    /// Connecting failed, or the session failed while connected (then ``sessionDidDisconnect(_:)`` follows).
    func session(_ session: Session, didFailWithError error: SessionError)
    /// Another client joined (or was already there when this one connected).
    func session(_ session: Session, connectionCreated connection: Connection)
    /// Another client left, was disconnected, or did not come back within the server's grace period.
    func session(_ session: Session, connectionDestroyed connection: Connection)
    /// Another client published a stream (or had one when this one connected); subscribe to it with a ``Subscriber``.
    /// This client's own streams are reported to their ``PublisherDelegate``.
    func session(_ session: Session, streamCreated stream: SessionStream)
    /// Another client's stream ended; this client's subscribers to it end too.
    func session(_ session: Session, streamDestroyed stream: SessionStream)
    /// A stream's audio, video, size or type changed; `stream` is its state after the change. Reported for every
    /// stream, this client's own included.
    func session(_ session: Session, stream: SessionStream, didChange change: StreamPropertyChange)
    /// A signal arrived: its type (may be empty), the sending connection (nil when the server's REST API sent it)
    /// and its data. The sender receives its own signals to everyone too.
    func session(_ session: Session, receivedSignalType type: String, from connection: Connection?, with data: String)
    /// An archive (recording) of the session started. The session server does not record yet: reserved for it.
    func session(_ session: Session, archiveStartedWithID archiveID: ArchiveID, name: String)
    /// An archive of the session stopped. The session server does not record yet: reserved for it.
    func session(_ session: Session, archiveStoppedWithID archiveID: ArchiveID)
    /// The connection to the server dropped and the session is resuming it; requests in flight have failed, signals
    /// sent with `retryAfterReconnect` are held.
    func sessionDidBeginReconnecting(_ session: Session)
    /// The session resumed with the same connection; held signals are sent next.
    func sessionDidReconnect(_ session: Session)
    /// A moderator force-muted one of this client's streams (``Session/forceMute(_:)``): its publisher's
    /// ``Publisher/publishAudio`` is now false, and everyone gets ``StreamPropertyChange/hasAudio(_:)``.
    func session(_ session: Session, muteForced info: MuteForcedInfo)
}

extension SessionDelegate {
    public func sessionDidConnect(_ session: Session) {}
    public func sessionDidDisconnect(_ session: Session) {}
    public func session(_ session: Session, didFailWithError error: SessionError) {}
    public func session(_ session: Session, connectionCreated connection: Connection) {}
    public func session(_ session: Session, connectionDestroyed connection: Connection) {}
    public func session(_ session: Session, streamCreated stream: SessionStream) {}
    public func session(_ session: Session, streamDestroyed stream: SessionStream) {}
    public func session(_ session: Session, stream: SessionStream, didChange change: StreamPropertyChange) {}
    public func session(_ session: Session, receivedSignalType type: String, from connection: Connection?,
                        with data: String) {}
    public func session(_ session: Session, archiveStartedWithID archiveID: ArchiveID, name: String) {}
    public func session(_ session: Session, archiveStoppedWithID archiveID: ArchiveID) {}
    public func sessionDidBeginReconnecting(_ session: Session) {}
    public func sessionDidReconnect(_ session: Session) {}
    public func session(_ session: Session, muteForced info: MuteForcedInfo) {}
}

extension SessionEvent {
    /// Calls the delegate method matching this event.
    func deliver(to delegate: any SessionDelegate, from session: Session) {
        switch self {
        case .connected: delegate.sessionDidConnect(session)
        case .disconnected: delegate.sessionDidDisconnect(session)
        case .failed(let error): delegate.session(session, didFailWithError: error)
        case .connectionCreated(let c): delegate.session(session, connectionCreated: c)
        case .connectionDestroyed(let c): delegate.session(session, connectionDestroyed: c)
        case .streamCreated(let s): delegate.session(session, streamCreated: s)
        case .streamDestroyed(let s): delegate.session(session, streamDestroyed: s)
        case .streamPropertyChanged(let s, let change): delegate.session(session, stream: s, didChange: change)
        case .signalReceived(let type, let data, let from):
            delegate.session(session, receivedSignalType: type, from: from, with: data)
        case .archiveStarted(let id, let name): delegate.session(session, archiveStartedWithID: id, name: name)
        case .archiveStopped(let id): delegate.session(session, archiveStoppedWithID: id)
        case .reconnecting: delegate.sessionDidBeginReconnecting(session)
        case .reconnected: delegate.sessionDidReconnect(session)
        case .muteForced(let info): delegate.session(session, muteForced: info)
        }
    }
}
