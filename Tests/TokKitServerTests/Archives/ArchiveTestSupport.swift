import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TokKitProtocol
@testable import TokKitServer

/// Calls of the archive API over real HTTP, with the reply's headers and its JSON read loosely.
struct ArchiveClient: Sendable {
    struct Reply: Sendable {
        var status: Int
        var headers: HTTPFields
        var body: [UInt8]
        /// The body as a JSON object (empty when it is not one).
        var object: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
        var code: Int? { TestServer.restError(body)?.code.rawValue }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    let server: TestServer
    static let base = "/v2/project/\(TestServer.apiKey)/archive"

    var admin: HTTPFields { [Caller.adminJWTHeader: server.server.authority.adminToken(now: WallClock.seconds())] }

    func token(_ sessionID: String, _ role: Role) async throws -> HTTPFields {
        [Caller.tokenHeader: try await server.token(sessionID, role: role)]
    }

    func call(_ method: HTTPRequest.Method, _ path: String, headers: HTTPFields? = nil, body: String? = nil)
        async throws -> Reply
    {
        var fields = headers ?? admin
        if body != nil { fields[.contentType] = "application/json" }
        let request = TestClient.Request(path, method: method, authority: "127.0.0.1", headers: fields,
                                         body: body.map { ByteBuffer(string: $0) })
        return try await TestClient.withClient(host: "127.0.0.1", port: server.port) { client in
            let response = try await client.execute(request)
            return Reply(status: Int(response.status.code), headers: response.headers,
                         body: response.body.map { Array($0.readableBytesView) } ?? [])
        }
    }

    /// Starts an archive of `sessionID` as admin; its id.
    func start(_ sessionID: String, name: String = "demo") async throws -> String {
        let reply = try await call(.post, Self.base, body: #"{"sessionId":"\#(sessionID)","name":"\#(name)"}"#)
        guard reply.status == 200, let id = reply.object["id"] as? String else {
            throw TestFailure("start: \(reply.status) \(reply.text)")
        }
        return id
    }

    /// Polls the archive until its status is `status` (at most 10 s); its last reply.
    func wait(_ id: String, status: String) async throws -> [String: Any] {
        var last: [String: Any] = [:]
        for _ in 0..<200 {
            last = try await call(.get, "\(Self.base)/\(id)").object
            if last["status"] as? String == status { return last }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("archive \(id) never became \(status): \(last)")
    }
}

extension RawClient {
    /// Skips messages until one `match` takes (nil: none within `timeout`).
    func first<T>(within timeout: Duration = .seconds(10), _ match: (ServerMessage) -> T?) async -> T? {
        let deadline = ContinuousClock.now + timeout
        for _ in 0..<1_000 {
            let remaining = deadline - .now
            guard remaining > .zero, case let .message(message)? = await next(within: remaining) else { return nil }
            if let found = match(message) { return found }
        }
        return nil
    }
}
