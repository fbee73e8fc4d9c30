import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import Synchronization
import TokKitProtocol

/// Serves one signaling WebSocket: a reader task feeding decoded requests to the ``SessionRegistry`` and a writer
/// task draining the socket's ``Outbox`` in batches (``Upgrade/write(_:)``: one event-loop hop and one flush for
/// all that waits). The reader joins frames into messages with a ``MessageAssembler`` (size
/// limit across fragments 1009, invalid UTF-8 1007, fragments out of order 1002: it closes the socket with that code
/// itself). Whichever side ends first ends the other: the reader ending (peer closed, network error, oversized or
/// invalid message) tells the registry, which closes the outbox; the outbox closing (registry
/// decision: disconnect, timeout, takeover, overflow, shutdown) sends the close frame and cancels the reader. An
/// outbox overflowing (a client that does not read) drops what it holds and the connection is cut after
/// `closeTimeout` if the close frame cannot get out.
///
/// `Sendable`; one instance serves every socket. `activeSockets` counts running handlers (leak checks).
/// `openSockets` counts accepted upgrades until their handler ends (or their channel closes first, see ``Upgrade``),
/// so it also covers a socket the client already holds open (the 101 went out) whose handler has not started yet: a
/// server stopping in that moment waits for it and it closes itself with 1001, instead of being left to the HTTP
/// server's graceful shutdown, which closes a WebSocket with 1000.
struct SignalingEndpoint: Sendable {
    let registry: SessionRegistry
    let outboxCapacity: Int
    /// Bytes a socket's outbox may hold (``ServerConfiguration/outboxMaxBytes``).
    let outboxMaxBytes: Int
    /// How long an overflowed socket's writer may take to send its close frame before the connection is cut.
    let closeTimeout: TimeAmount
    /// Counts outbox overflows.
    let metrics: ServerMetrics
    let activeSockets = Counter()
    let openSockets = Counter()

    /// One accepted upgrade, counted in ``openSockets`` until its handler ends or its channel closes, whichever
    /// comes first (a handshake can still fail after acceptance, and then no handler runs).
    final class Upgrade: Sendable {
        private let counter: Counter
        private let released = Atomic<Bool>(false)
        /// The socket's channel: its writer writes batches to it, and it is cut when the writer cannot even send a
        /// close frame.
        private let channel: any Channel
        /// When the socket last received bytes (stamped in its pipeline, read by the heartbeat).
        let activity = SocketActivity()

        fileprivate init(counter: Counter, channel: any Channel) {
            self.counter = counter
            self.channel = channel
            counter.increment()
        }

        /// Puts ``activity`` first in the socket's pipeline, so that every read is stamped as it arrives.
        func watchActivity() async throws {
            try await channel.pipeline.addHandler(activity, position: .first).get()
        }

        /// Writes one text frame per message with a single flush, and returns once the last is written to the
        /// socket (so a client that does not read holds its writer here, and its outbox fills). One hop to the
        /// event loop per batch, not per message; the frames share the messages' storage.
        func write(_ messages: [ByteBuffer]) async throws {
            guard !messages.isEmpty else { return }
            let done = channel.eventLoop.makePromise(of: Void.self)
            channel.eventLoop.execute { [channel] in
                let pipeline = channel.pipeline.syncOperations
                for (index, message) in messages.enumerated() {
                    let frame = WebSocketFrame(fin: true, opcode: .text, data: message)
                    pipeline.write(NIOAny(frame), promise: index == messages.count - 1 ? done : nil)
                }
                pipeline.flush()
            }
            try await done.futureResult.get()
        }

        /// Closes the connection after `delay`, whatever its writer is doing (a peer that does not read leaves it
        /// waiting for the socket to drain forever).
        func cut(after delay: TimeAmount) {
            channel.eventLoop.scheduleTask(in: delay) { [channel] in channel.close(promise: nil) }
        }

        /// Stops counting it; only the first call counts.
        func release() {
            if !released.exchange(true, ordering: .acquiringAndReleasing) { counter.decrement() }
        }
    }

    /// Called when the HTTP server agrees to upgrade a request to the signaling WebSocket, before it answers 101.
    func acceptUpgrade(channel: any Channel) -> Upgrade { Upgrade(counter: openSockets, channel: channel) }

    /// A thread-safe counter.
    final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        func increment() { value.add(1, ordering: .relaxed) }
        func decrement() { value.subtract(1, ordering: .relaxed) }
        var current: Int { value.load(ordering: .relaxed) }
    }

    func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, upgrade: Upgrade,
               logger: Logger) async {
        activeSockets.increment()
        defer {
            activeSockets.decrement()
            upgrade.release()
        }
        // The socket's lines carry its connection's ids (set by the registry: on open, connect and resume).
        let label = ConnectionLabel()
        let outbox = Outbox(capacity: outboxCapacity, maxBytes: outboxMaxBytes) { [closeTimeout, metrics] dropped in
            metrics.outboxOverflowed(droppedMessages: dropped)
            logger.notice("signaling socket dropped: outbox full, the client does not read",
                          metadata: label.metadata.merging(["dropped_messages": "\(dropped)"]) { $1 })
            upgrade.cut(after: closeTimeout)
        }
        let socket = await registry.open(outbox: outbox, label: label, activity: upgrade.activity)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while let batch = await outbox.nextBatch() {
                    do { try await upgrade.write(batch) } catch { break }
                    outbox.written(messages: batch.count, bytes: batch.reduce(0) { $0 + $1.readableBytes })
                }
                let code = outbox.closeCode
                try? await outbound.close(code.webSocketCode, reason: code.reason)
            }
            group.addTask {
                var assembler = MessageAssembler()
                do {
                    frames: for try await frame in inbound {
                        switch assembler.push(frame.opcode, fin: frame.fin, data: frame.data) {
                        case .incomplete:
                            continue
                        case let .text(bytes):
                            switch WireCodec.decodeRequest(bytes) {
                            case let .success(request): await registry.receive(request, on: socket)
                            case let .failure(failure): await registry.receiveMalformed(failure, on: socket)
                            }
                        case .binary:
                            let failure = WireCodec.RequestFailure(
                                rid: nil, error: ProtocolError(.invalidParameter, "binary messages are not supported"))
                            await registry.receiveMalformed(failure, on: socket)
                        case let .close(code):
                            // Closed here, by the reader, so that the code cannot lose a race with the writer's or
                            // the WebSocket handler's own close (1000); the outbox takes the same code.
                            logger.debug("signaling socket closed", metadata: label.metadata.merging(
                                ["code": "\(UInt16(webSocketErrorCode: code.webSocketCode))"]) { $1 })
                            outbox.close(code)
                            try? await outbound.close(code.webSocketCode, reason: nil)
                            break frames
                        }
                    }
                } catch is CancellationError {
                    // The writer ended first (the registry closed the outbox): nothing went wrong reading.
                } catch {
                    logger.debug("signaling socket read failed", metadata: label.metadata.merging(
                        ["error": "\(error)"]) { $1 })
                }
                await registry.socketClosed(socket)
            }
            await group.next()
            group.cancelAll()
        }
        await registry.socketClosed(socket)
        // One line per socket with both the connection's ids and the HTTP layer's request id (the handler's logger
        // carries `hb.request.id`), to tie Hummingbird's lines about it to the connection.
        logger.debug("signaling socket ended", metadata: label.metadata.merging(
            ["close_code": "\(UInt16(webSocketErrorCode: outbox.closeCode.webSocketCode))"]) { $1 })
    }
}
