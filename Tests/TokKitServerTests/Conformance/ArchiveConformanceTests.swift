import Foundation
import Hummingbird
import Testing
import TokKitProtocol
@testable import TokKitServer

/// Docs/Protocol.md, 5.7 (archive calls), row by row: each documented call is served, answers its documented
/// success status to an admin, 401 / 1004 without credentials and 403 / 1550 to a publisher token of the session.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ArchiveConformanceTests {
    @Test func everyArchiveCallRowIsServedAsDocumented() async throws {
        let table = try ProtocolDocument.load().table(in: "5.7")
        let (callColumn, replyColumn) = (try table.column("call"), try table.column("reply"))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await TestServer.with(recorder: FakeArchiveRecorder(), { $0.archiveDirectory = directory.path }) { server in
            let api = ArchiveClient(server: server)
            #expect(table.rows.count == 7, "rows: \(table.rows.map { $0[callColumn] })")
            for cells in table.rows {
                let (method, template) = try RESTConformanceTests.call(cells[callColumn])
                guard let status = Int(cells[replyColumn].prefix { $0.isNumber }) else {
                    Issue.record("no status in \(cells[replyColumn])")
                    continue
                }
                let session = try await server.session()
                let id = try await api.start(session)
                let isStart = method == "POST" && template.hasSuffix("/archive")
                if !(method == "POST" && template.hasSuffix("/stop")) && !isStart {
                    _ = try await api.call(.post, "\(ArchiveClient.base)/\(id)/stop")
                    _ = try await api.wait(id, status: "available")
                }
                let other = try await server.session()
                let path = template.replacingOccurrences(of: "{apiKey}", with: TestServer.apiKey)
                    .replacingOccurrences(of: "{archiveId}", with: id)
                let body = isStart ? #"{"sessionId":"\#(other)"}"# : nil
                let reply = try await api.call(RESTConformanceTests.method(method), path, body: body)
                #expect(reply.status == status, "\(method) \(template): \(reply.status) \(reply.text)")
                let anonymous = try await api.call(RESTConformanceTests.method(method), path, headers: [:], body: body)
                #expect(anonymous.status == 401 && anonymous.code == 1004, "\(method) \(template) without credentials")
                let publisher = try await api.token(isStart ? other : session, .publisher)
                let refused = try await api.call(RESTConformanceTests.method(method), path, headers: publisher, body: body)
                #expect(refused.status == 403 && refused.code == 1550, "\(method) \(template) as publisher")
            }
        }
    }
}
