import Foundation
import NIOWebSocket
import Synchronization
import Testing
import TokKitProtocol
import TokKitServer

/// One raw client of a conformance test: sends JSON objects as written (fields left out, wrong types), and reads
/// what the server sent back as raw JSON objects, so tests can check the fields Docs/Protocol.md lists, not only
/// what ``ServerMessage`` decodes. Every wait is bounded (``RawClient/wait``); none is asserted on.
/// Thread-safe (`Sendable`): the client is, and the counters are atomic.
final class ConformanceMember: Sendable {
    let client: RawClient
    /// The `connected` this member got (nil for a socket that has not connected).
    let connected: ServerMessage.Connected?
    private let counter = Atomic<Int>(1_000)

    init(client: RawClient, connected: ServerMessage.Connected?) {
        self.client = client
        self.connected = connected
    }

    /// Joins `session` of `server` with a fresh token of `role`.
    static func join(_ server: TestServer, _ session: String, role: Role) async throws -> ConformanceMember {
        let (client, connected) = try await server.join(session, role: role)
        return ConformanceMember(client: client, connected: connected)
    }

    /// Opens a socket that has not sent anything.
    static func open(_ server: TestServer) async throws -> ConformanceMember {
        ConformanceMember(client: try await RawClient(port: server.port), connected: nil)
    }

    var id: String { connected?.connection.id ?? "" }

    /// A number not used before by this member (for `rid` and `seq`).
    func fresh() -> Int { counter.add(1, ordering: .relaxed).newValue }

    /// Sends `object` as one JSON text message.
    func send(_ object: [String: Any]) {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        client.sendRaw(String(decoding: data, as: UTF8.self))
    }

    /// How many messages have been received so far (a mark for ``received(since:)``).
    var mark: Int { client.transcript.all.count }

    /// The messages received since `mark`, as JSON objects.
    func received(since mark: Int) -> [[String: Any]] {
        client.transcript.all.dropFirst(mark).compactMap { text in
            (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
        }
    }

    /// Reads events until the `ack` or `error` carrying `rid`; nil if the socket closed or nothing came in time.
    func reply(to rid: Int) async -> ServerMessage? {
        for _ in 0..<1_000 {
            switch await client.next() {
            case let .message(message):
                switch message {
                case let .ack(ack) where ack.rid == rid: return message
                case let .error(error) where error.rid == rid: return message
                default: continue
                }
            case .undecodable: continue
            case .closed, nil: return nil
            }
        }
        return nil
    }

    /// Sends a `ping` and reads until its `pong`: every message the server produced for this member before it has
    /// then been received (one connection's messages are delivered in order). False if the socket closed first.
    @discardableResult
    func sync() async -> Bool {
        let seq = fresh()
        client.sendRaw(#"{"type":"ping","seq":\#(seq)}"#)
        for _ in 0..<1_000 {
            switch await client.next() {
            case let .message(.pong(pong)) where pong.seq == seq: return true
            case .message, .undecodable: continue
            case .closed, nil: return false
            }
        }
        return false
    }

    /// Reads until the socket closes; its close code (nil if it did not close in time or sent none).
    func closeCode() async -> Int? {
        let close = await client.waitForClose()
        return close.closed ? close.code.map { Int(UInt16(webSocketErrorCode: $0)) } : nil
    }
}

/// The replies (`ack` or `error`) carrying `rid` among `messages`.
func replies(to rid: Int, in messages: [[String: Any]]) -> [[String: Any]] {
    messages.filter { ["ack", "error"].contains($0["type"] as? String) && ($0["rid"] as? Int) == rid }
}
