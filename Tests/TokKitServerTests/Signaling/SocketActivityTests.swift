import Foundation
import Logging
import Testing
import TokKitProtocol
@testable import TokKitServer

/// The heartbeat judges a client by when its bytes arrived, not by when the busy registry got to its messages.
@Suite struct SocketActivityTests {
    @Test func theStampOnlyMovesForward() {
        let start = ContinuousClock.now
        let activity = SocketActivity(now: start)
        #expect(activity.lastHeard == start)
        activity.heard(at: start + .milliseconds(1_500))
        activity.heard(at: start + .milliseconds(700))  // a late stamp from another read: ignored
        #expect(activity.lastHeard == start + .milliseconds(1_500))
    }

    /// A member whose last handled message is older than the heartbeat timeout, but whose socket received bytes
    /// since (a ping still waiting for its turn), stays; once nothing has arrived for the timeout, it is detached
    /// (close 1001) as before.
    @Test func bytesThatArrivedKeepAMemberWhoseMessagesWaitForTheirTurn() async throws {
        var configuration = ServerConfiguration()
        configuration.heartbeatTimeoutMs = 15_000
        let authority = TokenAuthority(apiKey: "key", apiSecret: "secret-0123456789-0123456789")
        let registry = SessionRegistry(authority: authority, configuration: configuration, logger: Logger(label: "test"))
        let start = ContinuousClock.now
        let session = try await registry.createSession(mediaMode: .relayed, archiveMode: .manual, now: start)
        let wall = Int64(Date().timeIntervalSince1970)
        let token = authority.sign(TokenClaims(
            apiKey: "key", sessionID: session.sessionID, role: .publisher, issuedAt: wall, expiresAt: wall + 600,
            nonce: "n", connectionData: ""))
        let outbox = Outbox(capacity: 100)
        let activity = SocketActivity(now: start)
        let socket = await registry.open(outbox: outbox, activity: activity, now: start)
        await registry.receive(
            ClientRequest(rid: 1, .connect(.init(apiKey: "key", sessionID: session.sessionID, token: token))),
            on: socket, now: start)
        #expect(await registry.stats().connected == 1)

        activity.heard(at: start + .seconds(14))
        await registry.sweep(now: start + .seconds(20))  // 20 s since the last message handled, 6 s since bytes
        #expect(await registry.stats().connected == 1)
        #expect(outbox.closeCode == .normal && !outbox.isOverflowed)

        await registry.sweep(now: start + .seconds(30))  // 16 s of silence
        let stats = await registry.stats()
        #expect(stats.connected == 0 && stats.awaitingResume == 1, "\(stats)")
        #expect(outbox.closeCode == .goingAway)
    }
}
