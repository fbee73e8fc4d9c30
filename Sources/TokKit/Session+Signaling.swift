import Synchronization
import TokKitProtocol

extension Session {
    /// Sends a signal to everyone in the session (the sender included) or to one connection, and returns once
    /// the server accepted it. Receivers get ``SessionEvent/signalReceived(type:data:from:)`` with `from` set by
    /// the server to this client's connection.
    ///
    /// Checked here first, with the codes the server uses: ``SessionError/invalidSignalType(_:)`` (1461),
    /// ``SessionError/signalDataTooLong(_:)`` (1413), ``SessionError/unableToSignal(_:)`` (1520) when the role may
    /// not signal, ``SessionError/notConnected`` (1010).
    ///
    /// While the session is ``SessionConnectionStatus/reconnecting``, a signal with `retryAfterReconnect` is held
    /// and sent once the session is restored (the call returns then), in the order signals were made; without
    /// it, the call fails with ``SessionError/notConnected``. A retried signal that was in flight when the socket
    /// dropped is sent again after the resume. If the session cannot be restored, held signals fail with
    /// ``SessionError/unableToSendSignal(_:)`` (1550).
    public func signal(type: String, data: String, to connection: Connection? = nil,
                       retryAfterReconnect: Bool = true) async throws(SessionError) {
        try SignalLimits.validate(type: type, data: data)
        let (status, role) = state.withLock { ($0.status, $0.role) }
        guard status == .connected || status == .reconnecting, let role else { throw .notConnected }
        guard role.maySignal else { throw .unableToSignal("the token's role may not signal") }
        _ = try await request(
            .signal(.init(type: type, data: data, to: connection?.connectionID.rawValue)),
            purpose: .signal(retry: retryAfterReconnect)
        ).get()
    }
}
