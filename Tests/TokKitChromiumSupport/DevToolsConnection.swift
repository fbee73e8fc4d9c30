import Foundation
import Logging
import NIOWebSocket
import Synchronization
import WSClient

/// A DevTools protocol client on one WebSocket (the browser endpoint, flat sessions): numbered commands
/// matched to their responses, each bounded by a deadline, and console events routed to their page's stream.
///
/// Threading: any method from any task. The socket runs in one task (NIO event loop underneath); responses
/// resume the waiting caller, console events are yielded to the page's `AsyncStream`. Nothing blocks a thread.
final class DevToolsConnection: Sendable {
    /// A command waiting for its response.
    private struct Pending {
        let method: String
        let continuation: CheckedContinuation<Result<JSONValue, ChromiumError>, Never>
        var timer: Task<Void, Never>?
    }

    private enum Phase { case open, closed(ChromiumError) }

    private struct State {
        var phase = Phase.open
        var nextID = 1
        var pending: [Int: Pending] = [:]
        var consoles: [String: AsyncStream<ConsoleMessage>.Continuation] = [:]
    }

    /// Largest message accepted (getStats and SDP dumps are a few hundred KiB at most).
    static let maxMessageSize = 1 << 24

    private let state = Mutex(State())
    private let outgoing: AsyncStream<String>
    private let outgoingContinuation: AsyncStream<String>.Continuation
    private let socket = Mutex<Task<Void, Never>?>(nil)

    /// Connects to `url` (`ws://127.0.0.1:PORT/devtools/browser/ID`); commands sent before the socket opens
    /// are queued.
    init(url: String) {
        (outgoing, outgoingContinuation) = AsyncStream.makeStream(of: String.self)
        socket.withLock { $0 = Task { await self.run(url) } }
    }

    /// Sends `method` and waits for its result, at most `timeout`.
    func send(_ method: String, _ params: [String: JSONValue] = [:], session: String? = nil,
              timeout: Duration = .seconds(30)) async throws(ChromiumError) -> JSONValue {
        let result = await withCheckedContinuation { (k: CheckedContinuation<Result<JSONValue, ChromiumError>, Never>) in
            let admitted: Result<Int, ChromiumError> = state.withLock { s in
                if case .closed(let why) = s.phase { return .failure(why) }
                let id = s.nextID
                s.nextID += 1
                s.pending[id] = Pending(method: method, continuation: k)
                return .success(id)
            }
            let id: Int
            switch admitted {
            case .failure(let why): return k.resume(returning: .failure(why))
            case .success(let value): id = value
            }
            var message: [String: JSONValue] = [
                "id": .number(Double(id)), "method": .string(method), "params": .object(params),
            ]
            if let session { message["sessionId"] = .string(session) }
            let timer = Task { [weak self] in
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                self?.complete(id, .failure(.timeout("DevTools \(method) after \(timeout)")))
            }
            let stillPending = state.withLock { s in
                guard s.pending[id] != nil else { return false }
                s.pending[id]!.timer = timer
                return true
            }
            if !stillPending { timer.cancel() }
            outgoingContinuation.yield(JSONValue.object(message).jsonText)
        }
        return try result.get()
    }

    /// Routes `Runtime.consoleAPICalled` of `session` to a new stream (the newest 10 000 are kept).
    func consoleMessages(of session: String) -> AsyncStream<ConsoleMessage> {
        let (stream, continuation) = AsyncStream.makeStream(of: ConsoleMessage.self,
                                                            bufferingPolicy: .bufferingNewest(10_000))
        let closed = state.withLock { s in
            if case .closed = s.phase { return true }
            s.consoles[session] = continuation
            return false
        }
        if closed { continuation.finish() }
        return stream
    }

    /// Closes the socket: pending commands fail with ``ChromiumError/connectionClosed(_:)``, console streams
    /// finish. Idempotent.
    func close() async {
        outgoingContinuation.finish()
        fail(.connectionClosed("closed by TokKit"))
        let task = socket.withLock { $0 }
        task?.cancel()
        await task?.value
    }

    // MARK: - Socket

    private func run(_ url: String) async {
        let configuration = WebSocketClientConfiguration(maxFrameSize: Self.maxMessageSize,
                                                         closeTimeout: .seconds(1))
        var logger = Logger(label: "tokkit.chromium.devtools")
        logger.logLevel = .warning
        do {
            try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) {
                inbound, outbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await text in self.outgoing { try await outbound.write(.text(text)) }
                        if !Task.isCancelled { try await outbound.close(.normalClosure, reason: nil) }
                    }
                    for try await message in inbound.messages(maxSize: Self.maxMessageSize) {
                        if case .text(let text) = message { self.dispatch(text) }
                    }
                    group.cancelAll()
                }
            }
            fail(.connectionClosed("closed by Chromium"))
        } catch {
            fail(.connectionClosed("\(url): \(error)"))
        }
    }

    private func dispatch(_ text: String) {
        guard let message = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else { return }
        if let id = message["id"]?.number {
            if let error = message["error"] {
                let method = state.withLock { $0.pending[Int(id)]?.method } ?? "?"
                complete(Int(id), .failure(.protocolError(method: method,
                                                          message: error["message"]?.string ?? error.jsonText)))
            } else {
                complete(Int(id), .success(message["result"] ?? .object([:])))
            }
            return
        }
        guard let method = message["method"]?.string, let session = message["sessionId"]?.string else { return }
        switch method {
        case "Runtime.consoleAPICalled":
            let params = message["params"]
            let type = params?["type"]?.string ?? "log"
            let args: [JSONValue] = if case .array(let a)? = params?["args"] { a } else { [] }
            let text = args.map(Self.render).joined(separator: " ")
            _ = state.withLock { $0.consoles[session] }?.yield(ConsoleMessage(type: type, text: text))
        case "Runtime.exceptionThrown":
            let details = message["params"]?["exceptionDetails"]
            let text = details?["exception"]?["description"]?.string ?? details?["text"]?.string ?? "?"
            _ = state.withLock { $0.consoles[session] }?.yield(ConsoleMessage(type: "exception", text: text))
        default:
            break
        }
    }

    /// A console argument (`Runtime.RemoteObject`) as text.
    private static func render(_ object: JSONValue) -> String {
        if let value = object["value"] { return value.string ?? value.jsonText }
        return object["description"]?.string ?? object["type"]?.string ?? "?"
    }

    private func complete(_ id: Int, _ result: Result<JSONValue, ChromiumError>) {
        guard let pending = state.withLock({ $0.pending.removeValue(forKey: id) }) else { return }
        pending.timer?.cancel()
        pending.continuation.resume(returning: result)
    }

    private func fail(_ why: ChromiumError) {
        let (pending, consoles): ([Pending], [AsyncStream<ConsoleMessage>.Continuation]) = state.withLock { s in
            if case .open = s.phase { s.phase = .closed(why) }
            defer { s.pending = [:]; s.consoles = [:] }
            return (Array(s.pending.values), Array(s.consoles.values))
        }
        for p in pending {
            p.timer?.cancel()
            p.continuation.resume(returning: .failure(why))
        }
        for c in consoles { c.finish() }
    }
}
