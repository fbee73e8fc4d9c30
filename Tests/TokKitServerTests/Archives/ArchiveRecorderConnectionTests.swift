import Foundation
import HTTPTypes
import Synchronization
import Testing
import TokKitProtocol
@testable import TokKitServer

/// A recorder that joins its session as the real one does: a signaling WebSocket upgraded with the request's
/// header fields, then `connect` with the hidden token. It records nothing.
final class JoiningArchiveRecorder: ArchiveRecorderFactory {
    func start(_ request: ArchiveRecordingRequest) async throws(ArchiveRecorderError) -> any ArchiveRecording {
        guard let port = request.serverURL.split(separator: ":").last.flatMap({ Int($0) }) else {
            throw .failed("bad server URL")
        }
        var headers = HTTPFields()
        if let credential = request.credential, let field = HTTPField.Name(credential.field) {
            headers[field] = credential.value
        }
        let client: RawClient
        do {
            client = try await RawClient(port: port, headers: headers)
        } catch {
            throw .failed("the recorder's connection was refused")
        }
        client.send(.connect(.init(apiKey: TestServer.apiKey, sessionID: request.sessionID, token: request.token)))
        guard case .connected = await client.nextMessage() else { throw .failed("the recorder did not join") }
        return Recording(client: client)
    }

    struct Recording: ArchiveRecording {
        let client: RawClient

        func stop() async -> ArchiveRecordingResult {
            client.close()
            await client.finished()
            return ArchiveRecordingResult(files: [])
        }
    }
}

/// A ``JoiningArchiveRecorder`` that, once asked to start (its ticket granted), waits for the test's go-ahead.
final class GatedArchiveRecorder: ArchiveRecorderFactory {
    /// Pushed when a start begins.
    let entered = Mailbox<Bool>()
    /// Push to let the start go on.
    let proceed = Mailbox<Bool>()

    func start(_ request: ArchiveRecordingRequest) async throws(ArchiveRecorderError) -> any ArchiveRecording {
        entered.push(true)
        guard await proceed.receive(within: .seconds(30)) == true else { throw .failed("no go-ahead") }
        return try await JoiningArchiveRecorder().start(request)
    }
}

/// The recorder's connections do not count against the per-address connection limit (it connects from 127.0.0.1
/// like any local client): it shows the server-held credential in its signaling upgrade; while it joins, a ticket
/// lets it in over a full address; a forged credential or one without a ticket gets nothing.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ArchiveRecorderConnectionTests {
    /// The limiter alone: probation needs a ticket (one connection each) and ends only with the credential.
    @Test func probationNeedsATicketAndTheCredential() throws {
        let limiter = ConnectionLimiter(maxTotal: 10, maxPerAddress: 1)
        limiter.recorderAddresses = ["127.0.0.1"]
        let objects = (0..<4).map { _ in NSObject() }
        let ids = objects.map(ObjectIdentifier.init)
        #expect(try limiter.admit("127.0.0.1", connection: ids[0]) == .counted)
        #expect(throws: ConnectionLimiter.Refusal.addressFull) { try limiter.admit("127.0.0.1", connection: ids[1]) }
        limiter.grantRecorderTicket()
        #expect(try limiter.admit("127.0.0.1", connection: ids[1]) == .probation)
        #expect(throws: ConnectionLimiter.Refusal.addressFull, "one connection per ticket") {
            try limiter.admit("127.0.0.1", connection: ids[2])
        }
        #expect(!limiter.exemptRecorder(ids[1], showing: "forged") && limiter.isOnProbation(ids[1]))
        #expect(limiter.exemptRecorder(ids[1], showing: limiter.recorderCredential) && !limiter.isOnProbation(ids[1]))
        // A counted connection showing the credential stops counting against its address.
        limiter.returnRecorderTicket()
        #expect(limiter.exemptRecorder(ids[0], showing: limiter.recorderCredential))
        #expect(limiter.held(by: "127.0.0.1") == 0 && limiter.open == 2)
        #expect(try limiter.admit("127.0.0.1", connection: ids[3]) == .counted)
        for id in ids { limiter.release(id) }
        #expect(limiter.open == 0 && limiter.held(by: "127.0.0.1") == 0)
        withExtendedLifetime(objects) {}
    }

    /// A ticket opens the probation slot only to the addresses the recorder connects from: another address at its
    /// cap (a remote client) cannot take it while a recorder joins.
    @Test func probationIsOnlyForTheRecordersAddress() throws {
        let limiter = ConnectionLimiter(maxTotal: 10, maxPerAddress: 1)
        limiter.recorderAddresses = ["127.0.0.1"]
        let objects = (0..<4).map { _ in NSObject() }
        let ids = objects.map(ObjectIdentifier.init)
        #expect(try limiter.admit("198.51.100.7", connection: ids[0]) == .counted)
        #expect(try limiter.admit("127.0.0.1", connection: ids[1]) == .counted)
        limiter.grantRecorderTicket()
        #expect(throws: ConnectionLimiter.Refusal.addressFull, "not the recorder's address") {
            try limiter.admit("198.51.100.7", connection: ids[2])
        }
        // The slot is still there for the recorder.
        #expect(try limiter.admit("127.0.0.1", connection: ids[3]) == .probation)
        limiter.returnRecorderTicket()
        for id in ids { limiter.release(id) }
        #expect(limiter.open == 0)
        withExtendedLifetime(objects) {}
    }

    /// While the recorder's ticket is outstanding, a connection over the full address that shows a forged credential,
    /// or none, is admitted on probation only: it does not become the recorder's and is closed at the probation's
    /// deadline, which frees the slot for the real recorder.
    @Test func probationWithoutTheCredentialEndsAtItsDeadline() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let recorder = GatedArchiveRecorder()
        try await TestServer.with(recorder: recorder, {
            $0.archiveDirectory = directory.path + "/archives"
            $0.maxConnections = 50
            $0.maxConnectionsPerAddress = 3
            $0.requestHeadTimeoutMs = 500  // the probation of a connection over the cap
        }) { server in
            let api = ArchiveClient(server: server)
            let session = try await server.session()
            let (member, _) = try await server.join(session)
            let other = try await RawClient(port: server.port)
            let limiter = server.server.limiter
            // The start call is the third connection from 127.0.0.1; it waits in the recorder with the ticket held.
            let start = Task { try await api.start(session) }
            #expect(await recorder.entered.receive(within: .seconds(10)) == true)
            #expect(limiter.held(by: "127.0.0.1") == 3)

            var forged = HTTPFields()
            forged[HTTPField.Name(ConnectionLimiter.recorderHeader)!] = "forged"
            for headers in [forged, HTTPFields()] {
                let intruder = try await RawClient(port: server.port, headers: headers)
                #expect(limiter.held(by: "127.0.0.1") == 3 && limiter.open == 4, "on probation, not counted")
                guard case .closed = await intruder.next(within: .seconds(5)) else {
                    Issue.record("a connection without the credential outlived its probation")
                    continue
                }
                await intruder.finished()
                for _ in 0..<200 where limiter.open != 3 { try await Task.sleep(for: .milliseconds(10)) }
                #expect(limiter.open == 3)
            }

            // The slot is free again: the real recorder joins over the cap.
            recorder.proceed.push(true)
            let id = try await start.value
            for _ in 0..<200 where limiter.held(by: "127.0.0.1") != 2 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(limiter.held(by: "127.0.0.1") == 2, "the member and the other socket; not the recorder")
            let stopped = try await api.call(.post, "\(ArchiveClient.base)/\(id)/stop")
            #expect(stopped.status == 200, "\(stopped.status) \(stopped.text)")
            withExtendedLifetime((member, other)) {}
        }
    }

    /// On a server whose address 127.0.0.1 is full (a member, another socket, the start call itself), an archive
    /// still starts: its recorder joins over the cap and is not counted; a forged credential is refused.
    @Test func theRecorderJoinsOverAFullAddressAndIsNotCounted() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await TestServer.with(recorder: JoiningArchiveRecorder(), {
            $0.archiveDirectory = directory.path + "/archives"
            $0.maxConnections = 50
            $0.maxConnectionsPerAddress = 3
            $0.requestHeadTimeoutMs = 500  // the probation of a connection over the cap
        }) { server in
            let api = ArchiveClient(server: server)
            let session = try await server.session()
            let (member, _) = try await server.join(session)
            let other = try await RawClient(port: server.port)
            // The start call is the third connection from 127.0.0.1: the recorder comes over the cap.
            let id = try await api.start(session)
            let limiter = server.server.limiter
            for _ in 0..<200 where limiter.held(by: "127.0.0.1") != 2 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(limiter.held(by: "127.0.0.1") == 2, "the member and the other socket; not the recorder")
            // Past its probation the recorder is still there: it showed the credential.
            try await Task.sleep(for: .milliseconds(1_000))
            #expect(await server.server.stats().connected == 2, "the member and the recorder")

            // Full again: a forged credential gets no way in.
            let third = try await RawClient(port: server.port)
            var forged = HTTPFields()
            forged[HTTPField.Name(ConnectionLimiter.recorderHeader)!] = "forged"
            await #expect(throws: (any Error).self) { _ = try await RawClient(port: server.port, headers: forged) }
            third.close()
            await third.finished()

            for _ in 0..<200 where limiter.held(by: "127.0.0.1") != 2 { try await Task.sleep(for: .milliseconds(10)) }
            let stopped = try await api.call(.post, "\(ArchiveClient.base)/\(id)/stop")
            #expect(stopped.status == 200, "\(stopped.status) \(stopped.text)")
            withExtendedLifetime((member, other)) {}
        }
    }
}
