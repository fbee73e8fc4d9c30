/// Receives a ``Session``'s events, as the SDK's `OTSessionDelegate`. Every method is optional: the protocol
/// extension gives each an empty default.
///
/// ## Threading
/// All methods are called on the session's ``Session/delegateQueue``, a serial `DispatchQueue` (by default a
/// private one per session, never the main queue unless you pass it), one at a time, in the order the events
/// happened. They see the same sequence as ``Session/events``. The session holds its delegate weakly.
public protocol SessionDelegate: AnyObject, Sendable {
    func sessionDidConnect(_ session: Session)
    func sessionDidDisconnect(_ session: Session)
    func session(_ session: Session, didFailWithError error: SessionError)
    func session(_ session: Session, connectionCreated connection: Connection)
    func session(_ session: Session, connectionDestroyed connection: Connection)
    func session(_ session: Session, streamCreated stream: SessionStream)
    func session(_ session: Session, streamDestroyed stream: SessionStream)
    func session(_ session: Session, stream: SessionStream, didChange change: StreamPropertyChange)
    func session(_ session: Session, receivedSignalType type: String, from connection: Connection?, with data: String)
    func session(_ session: Session, archiveStartedWithID archiveID: String, name: String)
    func session(_ session: Session, archiveStoppedWithID archiveID: String)
    func sessionDidBeginReconnecting(_ session: Session)
    func sessionDidReconnect(_ session: Session)
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
    public func session(_ session: Session, archiveStartedWithID archiveID: String, name: String) {}
    public func session(_ session: Session, archiveStoppedWithID archiveID: String) {}
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
