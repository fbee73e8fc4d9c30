import Logging
import Synchronization
import TokKitProtocol

// Reconnecting after a dropped socket, and the end of a connection.

extension Session {
    /// Starts the reconnect loop (the state is already `reconnecting`).
    func startReconnecting() {
        let policy = settings.reconnectPolicy
        let task = Task { [weak self] in
            let start = MonotonicClock.now()
            var attempt = 0
            while attempt < policy.maxAttempts {
                attempt += 1
                try? await Task.sleep(for: policy.delay(beforeAttempt: attempt))
                guard let self, !Task.isCancelled else { return }
                let hello: String? = self.state.withLock { s in
                    let elapsed = MonotonicClock.now() - start
                    guard s.status == .reconnecting, let me = s.me, let token = s.resumeToken,
                        elapsed < policy.totalTimeout, s.resumeGrace == .zero || elapsed < s.resumeGrace
                    else { return nil }
                    return Self.encode(ClientRequest(.resume(.init(connectionID: me.connectionID.rawValue, resumeToken: token))))
                }
                guard let hello else { break }
                self.logger.debug("resume attempt \(attempt)")
                guard let url = try? SignalingURL.make(from: self.serverURL) else { break }
                switch await self.open(hello: hello, url: url, resuming: true) {
                case .success:
                    self.state.withLock { $0.reconnectTask = nil }
                    return
                case .failure(let error):
                    self.logger.debug("resume attempt \(attempt) failed: \(error)")
                    if error.endsReconnecting { attempt = policy.maxAttempts }
                }
            }
            guard let self, !Task.isCancelled else { return }
            self.finishDisconnect(generation: nil)
        }
        state.withLock { s in
            if s.status == .reconnecting { s.reconnectTask = task } else { task.cancel() }
        }
    }

    /// Ends the connection for good: unregisters publishers and subscribers (telling their delegates), ends
    /// every negotiation, fails waiting requests, clears what the server told us, reports
    /// ``SessionEvent/disconnected`` and wakes `disconnect()` callers. With `generation`, does nothing when a newer
    /// link has taken over.
    func finishDisconnect(generation: UInt64?) {
        let (waiters, link) = state.withLock { s -> ([CheckedContinuation<Void, Never>], SignalingLink?) in
            if let generation, generation != s.generation { return ([], nil) }
            guard s.status != .notConnected, s.status != .failed else { return ([], nil) }
            let wasConnected = s.me != nil && s.status != .connecting
            let link = s.link
            s.link = nil
            s.reconnectTask?.cancel()
            s.reconnectTask = nil
            if let opening = s.opening {
                s.opening = nil
                opening.resume(returning: .failure(.connectionDropped))
            }
            for id in s.subscribers.keys.sorted() {
                endSubscriber(subscriberID: id, notifyServer: false, failure: nil, &s)
            }
            for id in s.publisherSides.keys.sorted() { endPublisherSide(subscriberID: id, &s) }
            for (streamID, publisher) in s.publishers {
                publisher.detach(from: self)
                if let stream = s.streams[streamID] { emit(.streamDestroyed(stream), for: publisher) }
            }
            s.publishers.removeAll()
            for (_, c) in s.awaitingStream { c.resume(returning: .failure(.connectionDropped)) }
            s.awaitingStream.removeAll()
            for rid in s.pending.keys.sorted() {
                guard let p = s.pending.removeValue(forKey: rid) else { continue }
                p.continuation.resume(returning: .failure(Self.failure(for: p.purpose, "the session disconnected")))
            }
            s.connections.removeAll()
            s.connectionOrder.removeAll()
            s.streams.removeAll()
            s.me = nil
            s.role = nil
            s.resumeToken = nil
            s.closedByServer = false
            s.networkMonitor?.stop()
            s.networkMonitor = nil
            s.statisticsTimer?.cancel()
            s.statisticsTimer = nil
            s.status = .notConnected
            if wasConnected { emit(.disconnected) }
            defer { s.disconnectWaiters.removeAll() }
            return (s.disconnectWaiters, link)
        }
        link?.cancel()
        for w in waiters { w.resume() }
    }
}

// MARK: - Network changes

extension Session {
    /// Watches the local addresses from the first `connected` until the session ends.
    func startNetworkMonitor(_ s: inout SessionState) {
        guard s.networkMonitor == nil else { return }
        s.networkMonitor = NetworkChangeMonitor { [weak self] gone in self?.localAddressesLost(gone) }
    }

    /// A local address went away: the signaling socket may have used it, so it is dropped and resumed at once
    /// (instead of after the heartbeat timeout), and every media link restarts once the session is back.
    func localAddressesLost(_ gone: Set<String>) {
        logger.info("local addresses gone: \(gone.sorted()); resuming the connection and restarting media")
        let link = state.withLock { s in s.status == .connected ? s.link : nil }
        withNegotiator { ($0 as? WebRTCNegotiator)?.networkChanged() }
        link?.drop()
    }

    /// The connection resumed after a drop: media links in an outage offer again now (their last offer may have
    /// been lost with the socket).
    func signalingResumed() {
        withNegotiator { ($0 as? WebRTCNegotiator)?.signalingResumed() }
    }
}

extension SessionError {
    /// Errors after which retrying a resume cannot help.
    var endsReconnecting: Bool {
        switch self {
        case .resumeFailed, .authorizationFailure, .invalidSession, .incompatibleVersion, .notConnected: true
        default: false
        }
    }
}
