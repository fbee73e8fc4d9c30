import HTTPTypes
import Logging
import NIOCore
import NIOWebSocket
import Synchronization
import Testing
import TokKitProtocol
import TokKitServer
import WSClient

/// A raw protocol client for tests: a real WebSocket (swift-websocket's WSClient) to 127.0.0.1, sending JSON text
/// and receiving decoded ``ServerMessage``s with bounded waits. Thread-safe.
final class RawClient: Sendable {
    enum Event: Sendable {
        case message(ServerMessage)
        case undecodable(String)
        /// The socket closed; the server's close code if it sent one.
        case closed(WebSocketErrorCode?)
    }

    private enum Outgoing: Sendable {
        case text(String)
        case frame(WebSocketFrame)
        case close
    }

    static let wait: Duration = .seconds(10)

    let events: Mailbox<Event>
    /// Every text message received, exactly as sent, in order (conformance tests read fields the decoder hides).
    let transcript: Transcript

    final class Transcript: Sendable {
        private let texts = Mutex<[String]>([])
        func append(_ text: String) { texts.withLock { $0.append(text) } }
        var all: [String] { texts.withLock { $0 } }
    }
    private let outgoing: AsyncStream<Outgoing>.Continuation
    private let task: Task<Void, Never>

    /// Opens the socket; returns once the WebSocket handshake completed (or throws).
    init(port: Int, path: String = TokKitServer.signalingPath, headers: HTTPFields = [:]) async throws {
        let (stream, continuation) = AsyncStream.makeStream(of: Outgoing.self, bufferingPolicy: .unbounded)
        outgoing = continuation
        let events = Mailbox<Event>()
        let connected = Mailbox<Bool>()
        let transcript = Transcript()
        self.transcript = transcript
        self.events = events
        task = Task {
            var logger = Logger(label: "test.client")
            logger.logLevel = .critical
            do {
                let close = try await WebSocketClient.connect(
                    url: "ws://127.0.0.1:\(port)\(path)",
                    configuration: .init(maxFrameSize: 1 << 20, additionalHeaders: headers, closeTimeout: .seconds(5)),
                    logger: logger
                ) { inbound, outbound, _ in
                    connected.push(true)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await item in stream {
                                switch item {
                                case let .text(text): try await outbound.write(.text(text))
                                case let .frame(frame): try await outbound.write(.custom(frame))
                                case .close:
                                    try await outbound.close(.normalClosure, reason: nil)
                                    return
                                }
                            }
                        }
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            guard case let .text(text) = message else { continue }
                            transcript.append(text)
                            switch WireCodec.decodeServer(text.utf8) {
                            case let .message(decoded): events.push(.message(decoded))
                            default: events.push(.undecodable(text))
                            }
                        }
                        group.cancelAll()
                    }
                }
                events.push(.closed(close?.closeCode))
            } catch {
                connected.push(false)
                events.push(.closed(nil))
            }
        }
        guard await connected.receive(within: Self.wait) == true else { throw RawClientError.connectFailed }
    }

    deinit {
        outgoing.finish()
    }

    func send(_ request: ClientRequest) {
        outgoing.yield(.text(String(decoding: WireCodec.encode(request), as: UTF8.self)))
    }

    func send(_ message: ClientMessage, rid: Int? = nil) {
        send(ClientRequest(rid: rid, message))
    }

    func sendRaw(_ text: String) {
        outgoing.yield(.text(text))
    }

    /// Sends one raw frame as given (no UTF-8 check, no splitting; masked as a client must): invalid text,
    /// fragments, continuation frames out of order.
    func sendFrame(_ opcode: WebSocketOpcode, fin: Bool = true, _ bytes: [UInt8]) {
        outgoing.yield(.frame(WebSocketFrame(fin: fin, opcode: opcode, data: ByteBuffer(bytes: bytes))))
    }

    /// Sends a close frame (no `disconnect`: to the server this is a lost socket).
    func close() {
        outgoing.yield(.close)
    }

    /// Waits until the socket task has ended.
    func finished() async {
        outgoing.finish()
        await task.value
    }

    /// The next event, or nil after `timeout`.
    func next(within timeout: Duration = RawClient.wait) async -> Event? {
        await events.receive(within: timeout)
    }

    /// The next message; records an issue and returns nil if the socket closed or nothing came in time.
    func nextMessage(within timeout: Duration = RawClient.wait, sourceLocation: SourceLocation = #_sourceLocation)
        async -> ServerMessage?
    {
        switch await next(within: timeout) {
        case let .message(message): return message
        case let .undecodable(text): Issue.record("undecodable message: \(text)", sourceLocation: sourceLocation)
        case let .closed(code):
            Issue.record("socket closed (\(String(describing: code)))", sourceLocation: sourceLocation)
        case nil: Issue.record("no message within \(timeout)", sourceLocation: sourceLocation)
        }
        return nil
    }

    /// Waits for the socket to close, skipping messages; returns the close code (nil if none or timeout).
    func waitForClose(within timeout: Duration = RawClient.wait) async -> (closed: Bool, code: WebSocketErrorCode?) {
        let deadline = ContinuousClock.now + timeout
        for _ in 0..<10_000 {
            let remaining = deadline - .now
            guard remaining > .zero, let event = await next(within: remaining) else { break }
            if case let .closed(code) = event { return (true, code) }
        }
        return (false, nil)
    }
}

enum RawClientError: Error {
    case connectFailed
}
