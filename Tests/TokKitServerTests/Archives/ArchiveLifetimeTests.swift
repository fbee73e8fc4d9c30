import Foundation
import HTTPTypes
import Testing
import TokKitProtocol
@testable import TokKitServer

/// How recordings end without a stop call, and that the recorder (a hidden member) never keeps a session or its
/// recording alive (Docs/Protocol.md, 5.7): the idle stop after `archiveIdleStopMs` (here short), session expiry,
/// and `archiveMode: always` under publish/unpublish churn.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ArchiveLifetimeTests {
    /// Joins `sessionID` as the recorder does, with a hidden token; the client after its `connected`.
    static func joinHidden(_ server: TestServer, _ sessionID: String) async throws -> RawClient {
        let token = try server.server.authority.issueHidden(sessionID: sessionID, now: WallClock.seconds()).token
        let client = try await server.open(sessionID, token: token)
        guard case .connected = await client.nextMessage() else { throw TestFailure("no connected reply") }
        return client
    }

    /// A recording runs while a client is there; once only the (hidden) recorder is left it stops by itself after
    /// the idle period and becomes `available`; members were told `archiveStopped`.
    @Test func aRecordingStopsOnceOnlyTheRecorderIsLeft() async throws {
        try await ArchiveRoutesTests.with({ $0.archiveIdleStopMs = 300 }) { api, _ in
            let session = try await api.server.session()
            let (a, _) = try await api.server.join(session)
            let recorder = try await Self.joinHidden(api.server, session)
            let id = try await api.start(session)
            try await Task.sleep(for: .milliseconds(900))
            #expect(try await api.call(.get, "\(ArchiveClient.base)/\(id)").object["status"] as? String == "started",
                    "a client is there: the recording goes on past the idle period")

            a.send(.disconnect, rid: 9)
            _ = try await api.wait(id, status: "available")
            let stopped = await recorder.first { if case let .archiveStopped(m) = $0 { m } else { nil } }
            #expect(stopped?.archiveID == id)
        }
    }

    /// The idle period counts from the recording's start when the session was empty before: a REST start in a
    /// session without participants for longer than the idle period records for that period, not until the next
    /// sweep.
    @Test func theIdleStopCountsFromTheRecordingsStart() async throws {
        try await ArchiveRoutesTests.with({ $0.archiveIdleStopMs = 1_000 }) { api, _ in
            let session = try await api.server.session()
            // Empty for longer than the idle period (sweeps every 250 ms have seen it empty).
            try await Task.sleep(for: .milliseconds(1_500))
            let id = try await api.start(session)
            try await Task.sleep(for: .milliseconds(600))
            #expect(try await api.call(.get, "\(ArchiveClient.base)/\(id)").object["status"] as? String == "started",
                    "stopped before its idle period passed")
            _ = try await api.wait(id, status: "available")
        }
    }

    /// An idle stop noted while the session was empty does not stop a recording whose session has a participant
    /// again by the time the archive service acts on it (here the note comes while a client is there).
    @Test func anIdleNoteIsCheckedAgainBeforeItStops() async throws {
        try await ArchiveRoutesTests.with { api, _ in
            let session = try await api.server.session()
            let (a, _) = try await api.server.join(session)
            let id = try await api.start(session)
            await api.server.server.registry.noteArchiveIdle(session)
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await api.call(.get, "\(ArchiveClient.base)/\(id)").object["status"] as? String == "started",
                    "a client is there: the recording goes on")
            _ = try await api.call(.post, "\(ArchiveClient.base)/\(id)/stop")
            _ = try await api.wait(id, status: "available")
            _ = a
        }
    }

    /// A session whose only member is the recorder expires after `emptySessionTimeoutMs` like an empty one: the
    /// recorder is disconnected and the recording stops (the idle period here is longer than the expiry).
    @Test func theRecorderDoesNotKeepItsSessionAlive() async throws {
        try await ArchiveRoutesTests.with({
            $0.emptySessionTimeoutMs = 1_500
            $0.archiveIdleStopMs = 3_600_000
        }) { api, _ in
            let session = try await api.server.session()
            let id = try await api.start(session)
            let recorder = try await Self.joinHidden(api.server, session)
            let after = await api.server.stats { $0.sessions == 0 && $0.connected == 0 }
            #expect(after.sessions == 0 && after.connected == 0, "\(after)")
            _ = try await api.wait(id, status: "available")
            _ = recorder
        }
    }

    /// Publishing and unpublishing in a loop in an `always` session (the recorder slow to start) starts far fewer
    /// archives than cycles: the work is kept per session, not queued per event. Afterwards nothing runs, nothing is
    /// pending, and the archives left are settled.
    @Test func alwaysModeChurnIsCoalesced() async throws {
        let recorder = FakeArchiveRecorder(startDelay: .milliseconds(100))
        try await ArchiveRoutesTests.with(recorder: recorder) { api, _ in
            let session = try await api.server.server.createSession(mediaMode: .relayed, archiveMode: .always).sessionID
            let (a, _) = try await api.server.join(session)
            let cycles = 100
            for cycle in 0..<cycles {
                a.send(.publish(.init(name: "churn")), rid: 2 * cycle + 1)
                let published = await a.first { message -> String? in
                    guard case let .ack(ack) = message, ack.rid == 2 * cycle + 1 else { return nil }
                    return ack.streamID
                }
                a.send(.unpublish(.init(streamID: try #require(published))), rid: 2 * cycle + 2)
            }
            let pending = await api.server.server.registry.archiveWork.count
            #expect(pending <= 1, "one session: one pending item at most, not \(pending)")

            // Settled: no archive started or stopped any more (bounded wait).
            var statuses: [String] = []
            for _ in 0..<200 {
                let items = try await api.call(.get, "\(ArchiveClient.base)?sessionId=\(session)&count=1000")
                    .object["items"] as? [[String: Any]] ?? []
                statuses = items.compactMap { $0["status"] as? String }
                if !statuses.contains("started") && !statuses.contains("stopped") { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(!statuses.contains("started") && !statuses.contains("stopped"), "\(statuses)")
            #expect(recorder.counts.starts < cycles / 4, "\(recorder.counts.starts) archives for \(cycles) cycles")
            #expect(recorder.counts.starts == recorder.counts.stops)
        }
    }
}
