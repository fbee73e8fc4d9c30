import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import Synchronization
import TokKitProtocol

/// Serves one signaling WebSocket: a reader task feeding decoded requests to the ``SessionRegistry`` and a writer
/// task draining the socket's ``Outbox``. Whichever side ends first ends the other: the reader ending (peer closed,
/// network error, oversized frame) tells the registry, which closes the outbox; the outbox closing (registry
/// decision: disconnect, timeout, takeover, overflow, shutdown) sends the close frame and cancels the reader.
///
/// `Sendable`; one instance serves every socket. `activeSockets` counts running handlers (leak checks);
/// `acceptedUpgrades` counts sockets upgraded (the client already holds an open WebSocket) whose handler has not
/// started yet, so that a server stopping in that moment still closes them itself (1001) rather than leaving them
/// to the HTTP server's graceful shutdown, which closes a WebSocket with 1000.
struct SignalingEndpoint: Sendable {
    let registry: SessionRegistry
    let outboxCapacity: Int
    let activeSockets = Counter()
    let acceptedUpgrades = Counter()

    /// Sockets being served or about to be.
    var openSockets: Int { activeSockets.current + acceptedUpgrades.current }

    /// Called when the HTTP server agrees to upgrade a request to the signaling WebSocket, before it answers 101.
    func upgradeAccepted() { acceptedUpgrades.increment() }

    /// A thread-safe counter.
    final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        func increment() { value.add(1, ordering: .relaxed) }
        func decrement() { value.subtract(1, ordering: .relaxed) }
        var current: Int { value.load(ordering: .relaxed) }
    }

    func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, logger: Logger) async {
        activeSockets.increment()
        acceptedUpgrades.decrement()  // after the increment: `openSockets` never dips to 0 in between
        defer { activeSockets.decrement() }
        let outbox = Outbox(capacity: outboxCapacity)
        let socket = await registry.open(outbox: outbox)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await bytes in outbox.messages {
                    let frame = WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: bytes))
                    do { try await outbound.write(.custom(frame)) } catch { break }
                }
                try? await outbound.close(outbox.closeCode.webSocketCode, reason: nil)
            }
            group.addTask {
                do {
                    for try await message in inbound.messages(maxSize: ProtocolLimits.maxFrameBytes) {
                        switch message {
                        case let .text(text):
                            switch WireCodec.decodeRequest(text.utf8) {
                            case let .success(request): await registry.receive(request, on: socket)
                            case let .failure(failure): await registry.receiveMalformed(failure, on: socket)
                            }
                        case .binary:
                            let failure = WireCodec.RequestFailure(
                                rid: nil, error: ProtocolError(.invalidParameter, "binary messages are not supported"))
                            await registry.receiveMalformed(failure, on: socket)
                        }
                    }
                } catch {
                    logger.debug("signaling socket read failed", metadata: ["error": "\(error)"])
                }
                await registry.socketClosed(socket)
            }
            await group.next()
            group.cancelAll()
        }
        await registry.socketClosed(socket)
    }
}
