import Foundation
import Hummingbird
import Testing
import TokKitProtocol
@testable import TokKitServer

/// A recorder whose stop reports two streams that never reached a file: one written empty with a failure, one whose
/// file does not exist.
struct NoMediaArchiveRecorder: ArchiveRecorderFactory {
    func start(_ request: ArchiveRecordingRequest) async throws(ArchiveRecorderError) -> any ArchiveRecording {
        let path = "\(request.directory)/broken.webm"
        guard FileManager.default.createFile(atPath: path, contents: Data()) else { throw .failed("cannot write") }
        return Recording(files: [
            .init(streamID: "broken", path: path, startOffset: nil, failure: "the decoder failed"),
            .init(streamID: "gone", path: "\(request.directory)/gone.webm", startOffset: nil),
        ])
    }

    struct Recording: ArchiveRecording {
        let files: [ArchiveRecordingResult.File]
        func stop() async -> ArchiveRecordingResult { ArchiveRecordingResult(files: files) }
    }
}

/// The archive API (Docs/Protocol.md, 5.7) on a real server with a fake recorder: lifecycle, downloads with
/// ranges, bad input, roles, events to members, `archiveMode: always`, restart recovery, quick-start calls.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ArchiveRoutesTests {
    static let base = ArchiveClient.base

    static func with(
        recorder: FakeArchiveRecorder = FakeArchiveRecorder(), directory: TemporaryDirectory? = nil,
        _ configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
        _ body: (ArchiveClient, String) async throws -> Void
    ) async throws {
        let directory = try directory ?? TemporaryDirectory()
        defer { directory.remove() }
        try await TestServer.with(recorder: recorder, {
            $0.archiveDirectory = directory.path + "/archives"
            configure(&$0)
        }) { server in
            try await body(ArchiveClient(server: server), directory.path + "/archives")
        }
    }

    @Test func anArchiveIsStartedStoppedDownloadedAndDeleted() async throws {
        let recorder = FakeArchiveRecorder()
        try await Self.with(recorder: recorder) { api, root in
            let session = try await api.server.session()
            let started = try await api.call(.post, Self.base, body: #"{"sessionId":"\#(session)","name":"talk","resolution":"1280x720","hasVideo":true}"#)
            #expect(started.status == 200, "\(started.text)")
            let id = try #require(started.object["id"] as? String)
            #expect(started.object["status"] as? String == "started" && started.object["name"] as? String == "talk")
            #expect(started.object["sessionId"] as? String == session && started.object["outputMode"] as? String == "individual")
            #expect(started.object["resolution"] as? String == "1280x720" && started.object["url"] == nil)

            // The recorder was asked with a hidden subscriber token of the session, into the archive's directory.
            let request = try #require(recorder.requests.first)
            let claims = try api.server.server.authority.verify(request.token, now: WallClock.seconds())
            #expect(claims.hidden == true && claims.role == .subscriber && claims.sessionID == session)
            #expect(request.directory == "\(root)/\(id)" && request.serverURL == "http://127.0.0.1:\(api.server.port)")

            let twice = try await api.call(.post, Self.base, body: #"{"sessionId":"\#(session)"}"#)
            #expect(twice.status == 409 && twice.code == 1015, "starting twice: \(twice.text)")
            #expect(try await api.call(.get, "\(Self.base)/\(id)").object["status"] as? String == "started")
            let listed = try await api.call(.get, "\(Self.base)?sessionId=\(session)").object
            #expect(listed["count"] as? Int == 1 && (listed["items"] as? [[String: Any]])?.first?["id"] as? String == id)

            let stopped = try await api.call(.post, "\(Self.base)/\(id)/stop")
            #expect(stopped.status == 200 && stopped.object["status"] as? String == "stopped", "\(stopped.text)")
            let available = try await api.wait(id, status: "available")
            #expect(available["size"] as? Int == 800)
            #expect(available["url"] as? String == "\(Self.base)/\(id)/download")
            let streams = try #require(available["streams"] as? [[String: Any]])
            #expect(streams.map { $0["streamId"] as? String } == ["streamA", "streamB"])
            #expect(streams.map { $0["startOffset"] as? Int } == [0, 1_000])
            let again = try await api.call(.post, "\(Self.base)/\(id)/stop")
            #expect(again.status == 409 && again.code == 1015, "stopping a stopped archive")

            // Downloads: the first stream by default, another by name, byte ranges.
            let whole = try await api.call(.get, "\(Self.base)/\(id)/download")
            #expect(whole.status == 200 && whole.body == FakeArchiveRecorder.content("streamA"))
            #expect(whole.headers[.contentType] == "video/webm" && whole.headers[.acceptRanges] == "bytes")
            let second = try await api.call(.get, "\(Self.base)/\(id)/download?stream=streamB")
            #expect(second.body == FakeArchiveRecorder.content("streamB"))
            let unknownStream = try await api.call(.get, "\(Self.base)/\(id)/download?stream=..%2Farchives.sqlite")
            #expect(unknownStream.status == 400 && unknownStream.code == 1011)
            var ranged = api.admin
            ranged[.range] = "bytes=10-19"
            let part = try await api.call(.get, "\(Self.base)/\(id)/download", headers: ranged)
            #expect(part.status == 206 && part.headers[.contentRange] == "bytes 10-19/400")
            #expect(part.body == Array(FakeArchiveRecorder.content("streamA")[10...19]))
            ranged[.range] = "bytes=-5"
            #expect(try await api.call(.get, "\(Self.base)/\(id)/download", headers: ranged).body
                == Array(FakeArchiveRecorder.content("streamA").suffix(5)))
            ranged[.range] = "bytes=400-"
            let beyond = try await api.call(.get, "\(Self.base)/\(id)/download", headers: ranged)
            #expect(beyond.status == 416 && beyond.headers[.contentRange] == "bytes */400")

            let deleted = try await api.call(.delete, "\(Self.base)/\(id)")
            #expect(deleted.status == 204)
            #expect(!FileManager.default.fileExists(atPath: "\(root)/\(id)"))
            let gone = try await api.call(.get, "\(Self.base)/\(id)").object
            #expect(gone["status"] as? String == "deleted" && gone["size"] as? Int == 0 && gone["url"] == nil)
            let afterDelete = try await api.call(.get, "\(Self.base)/\(id)/download")
            #expect(afterDelete.status == 409 && afterDelete.code == 1015)
            let deleteAgain = try await api.call(.delete, "\(Self.base)/\(id)")
            #expect(deleteAgain.status == 409 && deleteAgain.code == 1015)
            #expect(recorder.counts == .init(starts: 1, stops: 1))

            // Stopped, the session may be archived again.
            let next = try await api.start(session)
            #expect(next != id)
        }
    }

    @Test func badInputGetsItsErrorAndChangesNothing() async throws {
        let recorder = FakeArchiveRecorder()
        try await Self.with(recorder: recorder) { api, root in
            let session = try await api.server.session()
            let refusals: [(body: String?, status: Int, code: Int)] = [
                (#"{"sessionId":"2_unknown"}"#, 404, 1005),
                (#"{"sessionId":"\#(session)","resolution":"4000x3000"}"#, 400, 1011),
                (#"{"sessionId":"\#(session)","resolution":"640X480"}"#, 400, 1011),
                (#"{"sessionId":"\#(session)","outputMode":"hologram"}"#, 400, 1011),
                (#"{"sessionId":"\#(session)","outputMode":"composed"}"#, 501, 1620),
                (#"{"sessionId":"\#(session)","hasAudio":false,"hasVideo":false}"#, 400, 1011),
                (#"{"sessionId":"\#(session)","name":"\#(String(repeating: "n", count: 257))"}"#, 400, 1011),
                (#"{"name":"no session"}"#, 400, 1011),
                (#"not json"#, 400, 1011),
                (nil, 400, 1011),
            ]
            for refusal in refusals {
                let reply = try await api.call(.post, Self.base, body: refusal.body)
                #expect(reply.status == refusal.status && reply.code == refusal.code, "\(refusal.body ?? "no body"): \(reply.status) \(reply.text)")
            }
            let unknown = ArchiveID.make()
            for (method, path) in [(HTTPRequest.Method.get, unknown), (.post, "\(unknown)/stop"), (.delete, unknown),
                                   (.get, "\(unknown)/download"), (.get, "\(unknown)/view")] {
                let reply = try await api.call(method, "\(Self.base)/\(path)")
                #expect(reply.status == 404 && reply.code == 1605, "\(method) \(path): \(reply.status) \(reply.text)")
            }
            // Ids that are not archive ids never reach the store or the disk: 404, whatever they spell.
            let sentinel = "\(root)/../sentinel"
            #expect(FileManager.default.createFile(atPath: sentinel, contents: Data([1, 2, 3])))
            for id in ["..", "..%2F..%2Fsentinel", "%2e%2e", "archives.sqlite", unknown.uppercased(), "..%2Fsentinel%00",
                       String(repeating: "a", count: 36)] {
                for (method, suffix) in [(HTTPRequest.Method.get, ""), (.delete, ""), (.get, "/download"), (.post, "/stop")] {
                    let reply = try await api.call(method, "\(Self.base)/\(id)\(suffix)")
                    #expect(reply.status == 404, "\(method) \(id)\(suffix): \(reply.status) \(reply.text)")
                }
            }
            #expect(FileManager.default.contents(atPath: sentinel) == Data([1, 2, 3]))
            #expect(FileManager.default.fileExists(atPath: "\(root)/archives.sqlite"))
            for query in ["count=0", "count=1001", "offset=-1", "count=abc", "offset=99999999999"] {
                let reply = try await api.call(.get, "\(Self.base)?\(query)")
                #expect(reply.status == 400 && reply.code == 1011, "\(query): \(reply.status)")
            }
            let listed = try await api.call(.get, Self.base).object
            #expect(listed["count"] as? Int == 0, "nothing was created")
            #expect(recorder.counts == .init(starts: 0, stops: 0))
            #expect(try await api.call(.get, Self.base, headers: [:]).status == 401, "no credentials")
            #expect(try await api.call(.get, "/v2/project/other-key/archive").status == 401, "another API key")

            // A recorder that cannot join: 500 / 2000, the archive is listed failed, and the session can try again.
            recorder.fail(true)
            let failed = try await api.call(.post, Self.base, body: #"{"sessionId":"\#(session)"}"#)
            #expect(failed.status == 500 && failed.code == 2000, "\(failed.text)")
            let items = try #require(try await api.call(.get, Self.base).object["items"] as? [[String: Any]])
            #expect(items.count == 1 && items.first?["status"] as? String == "failed")
            recorder.fail(false)
            _ = try await api.start(session)
        }
    }

    @Test func withoutDirectoryOrRecorderArchivingIsUnavailable() async throws {
        try await TestServer.with { server in
            let api = ArchiveClient(server: server)
            let session = try await server.session()
            let start = try await api.call(.post, Self.base, body: #"{"sessionId":"\#(session)"}"#)
            #expect(start.status == 501 && start.code == 1620)
            let list = try await api.call(.get, Self.base)
            #expect(list.status == 501 && list.code == 1620)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await TestServer.with({ $0.archiveDirectory = directory.path }) { server in
            let api = ArchiveClient(server: server)
            let start = try await api.call(.post, Self.base, body: #"{"sessionId":"\#(try await server.session())"}"#)
            #expect(start.status == 501 && start.code == 1620, "no recorder wired in")
            #expect(try await api.call(.get, Self.base).status == 200, "stored archives are still listed")
        }
    }

    @Test func aModeratorOfTheSessionMayArchiveOtherRolesMayNot() async throws {
        try await Self.with { api, _ in
            let session = try await api.server.session()
            let other = try await api.server.session()
            for role in [Role.publisher, .subscriber] {
                let headers = try await api.token(session, role)
                let start = try await api.call(.post, Self.base, headers: headers, body: #"{"sessionId":"\#(session)"}"#)
                #expect(start.status == 403 && start.code == 1550, "\(role): \(start.text)")
                let list = try await api.call(.get, Self.base, headers: headers)
                #expect(list.status == 403 && list.code == 1550)
            }
            let moderator = try await api.token(session, .moderator)
            let started = try await api.call(.post, Self.base, headers: moderator, body: #"{"sessionId":"\#(session)"}"#)
            #expect(started.status == 200, "\(started.text)")
            let id = try #require(started.object["id"] as? String)
            let publisher = try await api.token(session, .publisher)
            let refusedStop = try await api.call(.post, "\(Self.base)/\(id)/stop", headers: publisher)
            #expect(refusedStop.status == 403 && refusedStop.code == 1550)
            #expect(try await api.call(.get, "\(Self.base)/\(id)", headers: moderator).status == 200)

            // A moderator of another session: the archive does not exist for it; its list is its own session's.
            let stranger = try await api.token(other, .moderator)
            let seen = try await api.call(.get, "\(Self.base)/\(id)", headers: stranger)
            #expect(seen.status == 404 && seen.code == 1605)
            #expect(try await api.call(.post, "\(Self.base)/\(id)/stop", headers: stranger).status == 404)
            let foreign = try await api.call(.post, Self.base, headers: stranger, body: #"{"sessionId":"\#(session)"}"#)
            #expect(foreign.status == 401 && foreign.code == 1004)
            #expect(try await api.call(.get, Self.base, headers: stranger).object["count"] as? Int == 0)
            #expect(try await api.call(.get, "\(Self.base)?sessionId=\(session)", headers: stranger).status == 401)
            #expect(try await api.call(.get, Self.base, headers: moderator).object["count"] as? Int == 1)

            let stopped = try await api.call(.post, "\(Self.base)/\(id)/stop", headers: moderator)
            #expect(stopped.status == 200 && stopped.object["status"] as? String == "stopped")
        }
    }

    @Test func membersHearArchiveStartedAndStopped() async throws {
        try await Self.with { api, _ in
            let session = try await api.server.session()
            let (a, _) = try await api.server.join(session)
            let id = try await api.start(session, name: "the <talk>")
            let heard = await a.first { if case let .archiveStarted(m) = $0 { m } else { nil } }
            #expect(heard == .init(archiveID: id, name: "the <talk>"))

            // A connection joining while the recording runs hears of it right after `connected`.
            let (b, _) = try await api.server.join(session)
            #expect(await b.nextMessage() == .archiveStarted(.init(archiveID: id, name: "the <talk>")))

            _ = try await api.call(.post, "\(ArchiveClient.base)/\(id)/stop")
            for client in [a, b] {
                let stopped = await client.first { if case let .archiveStopped(m) = $0 { m } else { nil } }
                #expect(stopped == .init(archiveID: id))
            }
            // Once stopped, a newcomer hears nothing of it.
            let (c, _) = try await api.server.join(session)
            c.send(.ping(.init(seq: 7)))
            #expect(await c.nextMessage() == .pong(.init(seq: 7)))
        }
    }

    @Test func anAlwaysSessionIsRecordedFromItsFirstStreamToItsLast() async throws {
        let recorder = FakeArchiveRecorder()
        try await Self.with(recorder: recorder) { api, _ in
            let session = try await api.server.server.createSession(mediaMode: .relayed, archiveMode: .always).sessionID
            let (a, _) = try await api.server.join(session)
            a.send(.publish(.init(name: "one")), rid: 1)
            let first = await a.first { if case let .ack(ack) = $0 { ack.streamID } else { nil } }
            let started = await a.first { if case let .archiveStarted(m) = $0 { m } else { nil } }
            let id = try #require(started?.archiveID)
            a.send(.publish(.init(name: "two")), rid: 2)
            let second = await a.first { if case let .ack(ack) = $0 { ack.streamID } else { nil } }
            #expect(recorder.counts.starts == 1, "one archive for the session")
            #expect(try await api.call(.get, "\(ArchiveClient.base)/\(id)").object["status"] as? String == "started")

            a.send(.unpublish(.init(streamID: try #require(first))), rid: 3)
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await api.call(.get, "\(ArchiveClient.base)/\(id)").object["status"] as? String == "started",
                    "a stream remains")
            a.send(.unpublish(.init(streamID: try #require(second))), rid: 4)
            let stopped = await a.first { if case let .archiveStopped(m) = $0 { m } else { nil } }
            #expect(stopped?.archiveID == id)
            _ = try await api.wait(id, status: "available")

            // Publishing again starts a new archive.
            a.send(.publish(.init(name: "three")), rid: 5)
            let again = await a.first { if case let .archiveStarted(m) = $0 { m } else { nil } }
            #expect(again != nil && again?.archiveID != id)
        }
    }

    /// The recorder cuts its files at the instant the API's stop was called, not when the service reaches it
    /// (after saving the record and telling the members: under load, a large part of a second).
    @Test func theRecorderIsToldWhenTheStopWasAsked() async throws {
        let recorder = FakeArchiveRecorder()
        try await Self.with(recorder: recorder) { api, _ in
            let id = try await api.start(try await api.server.session())
            let before = ContinuousClock.now
            let stopped = try await api.call(.post, "\(ArchiveClient.base)/\(id)/stop")
            let after = ContinuousClock.now
            #expect(stopped.status == 200, "\(stopped.text)")
            _ = try await api.wait(id, status: "available")
            let asked = try #require(recorder.stopsAskedAt.first, "stopped without the instant: \(recorder.counts)")
            #expect(recorder.counts.stops == 1 && before <= asked && asked <= after)
        }
    }

    /// An archive that recorded no media is not kept `available`: it is `failed` ("no media was recorded"), without
    /// files, size 0 and no `url`; its directory is gone.
    @Test func anArchiveOfNoMediaFailsWithoutFilesOrURL() async throws {
        try await Self.with(recorder: FakeArchiveRecorder(streams: [])) { api, directory in
            let id = try await api.start(try await api.server.session())
            _ = try await api.call(.post, "\(ArchiveClient.base)/\(id)/stop")
            let record = try await api.wait(id, status: "failed")
            #expect(record["reason"] as? String == ArchiveService.nothingRecorded, "\(record)")
            #expect(record["size"] as? Int == 0 && (record["streams"] as? [Any])?.isEmpty == true && record["url"] == nil)
            #expect(!FileManager.default.fileExists(atPath: "\(directory)/\(id)"))
            let download = try await api.call(.get, "\(ArchiveClient.base)/\(id)/download")
            #expect(download.status == 409 && download.code == 1015, "\(download.status) \(download.text)")
        }
    }

    /// An archive of no media whose recorder also reported why keeps those reasons after "no media was recorded".
    @Test func anArchiveOfNoMediaKeepsTheRecordersReasons() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await TestServer.with(recorder: NoMediaArchiveRecorder(), {
            $0.archiveDirectory = directory.path + "/archives"
        }) { server in
            let api = ArchiveClient(server: server)
            let id = try await api.start(try await server.session())
            _ = try await api.call(.post, "\(ArchiveClient.base)/\(id)/stop")
            let record = try await api.wait(id, status: "failed")
            #expect(record["reason"] as? String == ArchiveService.nothingRecorded
                        + "; stream broken: the decoder failed; missing file for stream gone", "\(record)")
        }
    }

    /// A server runs 32 archives at most: the next start is 503 / 1430 and creates nothing; one stop frees a place.
    @Test func archivesRunningAtOnceAreCapped() async throws {
        try await Self.with { api, _ in
            var ids: [String] = []
            for _ in 0..<ArchiveService.maximumRunning { ids.append(try await api.start(try await api.server.session())) }
            let over = try await api.call(.post, ArchiveClient.base,
                                          body: #"{"sessionId":"\#(try await api.server.session())"}"#)
            #expect(over.status == 503 && over.code == 1430, "\(over.status) \(over.text)")
            let listed = try await api.call(.get, "\(ArchiveClient.base)?count=100").object
            #expect(listed["count"] as? Int == ArchiveService.maximumRunning, "\(listed)")
            _ = try await api.call(.post, "\(ArchiveClient.base)/\(ids[0])/stop")
            _ = try await api.wait(ids[0], status: "available")
            _ = try await api.start(try await api.server.session())
        }
    }

    @Test func stoppingTheServerFinishesItsRecordings() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try await TestServer.start(recorder: FakeArchiveRecorder()) { $0.archiveDirectory = directory.path }
        let api = ArchiveClient(server: server)
        let id = try await api.start(try await server.session())
        await server.server.stop()
        let record = try #require(try await ArchiveStore(directory: directory.path).record(id))
        #expect(record.status == .available && record.streams.count == 2)
    }

    @Test func anArchiveAKilledServerLeftRecordingIsListedAfterARestart() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let id = ArchiveID.make()
        let createdAt = Int64(Date().timeIntervalSince1970 * 1_000) - 5_000
        do {
            let store = try ArchiveStore(directory: directory.path)
            try await store.save(ArchiveRecord(
                id: id, sessionID: "2_gone", name: "killed", outputMode: .individual, hasAudio: true, hasVideo: true,
                resolution: "640x480", status: .started, createdAt: createdAt))
            try FileManager.default.createDirectory(atPath: store.directory(of: id), withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: store.directory(of: id) + "/cam.webm", contents: Data(count: 2_000)))
        }
        try await TestServer.with(recorder: FakeArchiveRecorder(), { $0.archiveDirectory = directory.path }) { server in
            let api = ArchiveClient(server: server)
            let record = try await api.call(.get, "\(ArchiveClient.base)/\(id)").object
            #expect(record["status"] as? String == "available" && record["reason"] as? String == "recovered after a server restart")
            #expect(record["size"] as? Int == 2_000)
            let download = try await api.call(.get, "\(ArchiveClient.base)/\(id)/download")
            #expect(download.status == 200 && download.body.count == 2_000)
        }
    }

    @Test func theViewPagePlaysTheArchiveThroughSignedLinks() async throws {
        try await Self.with { api, _ in
            let id = try await api.start(try await api.server.session(), name: "<b>x</b>")
            let early = try await api.call(.get, "\(ArchiveClient.base)/\(id)/view")
            #expect(early.status == 200 && early.text.contains("started") && !early.text.contains("<video"))
            _ = try await api.call(.post, "\(ArchiveClient.base)/\(id)/stop")
            _ = try await api.wait(id, status: "available")
            let page = try await api.call(.get, "\(ArchiveClient.base)/\(id)/view")
            #expect(page.status == 200 && page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(page.text.contains("&lt;b&gt;x&lt;/b&gt;") && !page.text.contains("<b>x</b>"), "the name is escaped")
            let sources = Self.videoSources(page.text)
            #expect(sources.count == 2)
            let first = try #require(sources.first)
            let played = try await api.call(.get, first, headers: [:])
            #expect(played.status == 200 && played.body == FakeArchiveRecorder.content("streamA"), "the link needs no credentials")
            let forged = first.replacingOccurrences(of: "signature=", with: "signature=AA")
            #expect(try await api.call(.get, forged, headers: [:]).status == 401)
            let otherArchive = first.replacingOccurrences(of: id, with: ArchiveID.make())
            #expect(try await api.call(.get, otherArchive, headers: [:]).status == 401, "a link is for one archive")
            #expect(try await api.call(.get, "\(ArchiveClient.base)/\(id)/view", headers: [:]).status == 401)
        }
    }

    @Test func theTutorialsWebServiceCallsWorkOnQuickStartSessions() async throws {
        try await Self.with { api, _ in
            let room = try await api.call(.get, "/room/archiving", headers: [:]).object
            let session = try #require(room["sessionId"] as? String)
            let started = try await api.call(.post, "/start/\(session)", headers: [:])
            #expect(started.status == 200 && started.object["status"] as? String == "started", "\(started.text)")
            let id = try #require(started.object["id"] as? String)
            let stopped = try await api.call(.post, "/stop/\(id)", headers: [:])
            #expect(stopped.status == 200 && stopped.object["status"] as? String == "stopped")
            _ = try await api.wait(id, status: "available")
            let page = try await api.call(.get, "/view/\(id)", headers: [:])
            #expect(page.status == 200 && Self.videoSources(page.text).count == 2)
            let record = try await api.call(.get, "/archive/\(id)", headers: [:])
            #expect(record.status == 200 && record.object["status"] as? String == "available", "\(record.text)")
            let url = try #require(record.object["url"] as? String)
            #expect(url.contains("signature="), "the url is a signed link: \(url)")
            let downloaded = try await api.call(.get, url, headers: [:])
            #expect(downloaded.status == 200 && downloaded.body == FakeArchiveRecorder.content("streamA"), "the link needs no credentials")

            // Only sessions quick start made: an admin's session is unknown here.
            let adminSession = try await api.server.session()
            let refused = try await api.call(.post, "/start/\(adminSession)", headers: [:])
            #expect(refused.status == 404 && refused.code == 1005)
            let adminArchive = try await api.start(adminSession)
            #expect(try await api.call(.post, "/stop/\(adminArchive)", headers: [:]).status == 404)
            #expect(try await api.call(.get, "/view/\(adminArchive)", headers: [:]).status == 404)
            #expect(try await api.call(.get, "/archive/\(adminArchive)", headers: [:]).status == 404)
        }
        try await Self.with({ $0.quickStart = false }) { api, _ in
            let reply = try await api.call(.post, "/start/2_x", headers: [:])
            #expect(reply.status == 404 && reply.code == 1011, "quick start off: the path is not served")
        }
    }

    /// The `src` of each `<video>` of a page, HTML entities undone.
    static func videoSources(_ page: String) -> [String] {
        page.components(separatedBy: "<video").dropFirst().compactMap { part in
            guard let start = part.range(of: "src=\"")?.upperBound, let end = part[start...].firstIndex(of: "\"") else {
                return nil
            }
            return String(part[start..<end]).replacingOccurrences(of: "&amp;", with: "&")
        }
    }
}
