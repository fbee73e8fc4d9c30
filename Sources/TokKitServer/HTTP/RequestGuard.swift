import NIOCore
import NIOHTTP1
import TokKitProtocol

/// Guards one HTTP connection of the server from its opening until it is upgraded to the signaling WebSocket (then
/// it steps aside: the signaling protocol has its own deadlines, Docs/Protocol.md 6.2).
///
/// - A request head (a REST call or the WebSocket handshake) must be complete within ``Timeouts/head`` of the
///   connection opening or of the server finishing its answers to every request so far; a request's body within
///   ``Timeouts/body`` of its head. Otherwise the connection is closed: silent and slowloris connections, and idle
///   keep-alive ones. While the server is answering, no deadline runs.
/// - A malformed first request (the HTTP decoder's parse error: a garbage request line, NUL in a header, a head over
///   the size or count limits, a bad `Content-Length`, `Content-Length` with `Transfer-Encoding`, a header without
///   a colon...) is answered 400 with the REST error body and closed. Nothing else answers a first request's parse
///   error (the WebSocket upgrade handler waits for a head and would hold the connection forever); later requests'
///   parse errors are answered by Hummingbird, and this guard then closes the connection after ``Timeouts/head`` at
///   the latest. The decoder (llhttp) already refuses other HTTP versions and `Content-Length` with
///   `Transfer-Encoding`; should a head with either get through, it is answered 400 and closed too (closed without
///   an answer while an earlier pipelined request is still being answered).
///
/// Sits in the child channel pipeline after the HTTP decoder and the upgrade handler, before Hummingbird's handlers.
/// Runs on the channel's event loop only (not `Sendable`, as channel handlers are).
final class RequestGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The two deadlines.
    struct Timeouts: Sendable {
        /// For a complete request head, from the connection opening or the previous request's end.
        var head: TimeAmount
        /// For a complete request body, from its head.
        var body: TimeAmount
    }

    private enum Phase {
        /// Waiting for a request head (none yet, or the previous request ended).
        case awaitingHead
        /// A head went on; waiting for the request's end.
        case readingBody
        /// Every request read; the server still answers one.
        case answering
        /// Upgraded to WebSocket: everything passes untouched.
        case handedOver
        /// Answering 400 and closing: nothing more is read.
        case closing
    }

    private let timeouts: Timeouts
    /// Counts 400 answers (refused, 1011) and missed deadlines (nil: not counted).
    private let metrics: ServerMetrics?
    private var phase = Phase.awaitingHead
    /// A request went on to the router: from then on Hummingbird answers parse errors itself.
    private var routerServes = false
    /// Requests whose head went on and whose response has not ended yet.
    private var unanswered = 0
    private var deadline: Scheduled<Void>?

    init(timeouts: Timeouts, metrics: ServerMetrics? = nil) {
        self.timeouts = timeouts
        self.metrics = metrics
    }

    func handlerAdded(context: ChannelHandlerContext) {
        arm(timeouts.head, context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch phase {
        case .handedOver:
            context.fireChannelRead(data)
            return
        case .closing:
            return
        case .awaitingHead, .readingBody, .answering:
            break
        }
        let part = Self.unwrapInboundIn(data)
        switch part {
        case let .head(head):
            guard head.version.major == 1, head.version.minor <= 1,
                  !(head.headers.contains(name: "content-length") && head.headers.contains(name: "transfer-encoding"))
            else {
                // A pipelined answer may still be on its way: a 400 now could cut into it, so then just close.
                if unanswered == 0 {
                    reject(context: context)
                } else {
                    phase = .closing
                    disarm()
                    Self.close(context.channel, quietly: false)
                }
                return
            }
            phase = .readingBody
            routerServes = true
            unanswered += 1
            arm(timeouts.body, context: context)
        case .body:
            break
        case .end:
            requestRead(context: context)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard phase != .handedOver else {
            context.write(data, promise: promise)
            return
        }
        if case .end = Self.unwrapOutboundIn(data) {
            unanswered = max(0, unanswered - 1)
            if unanswered == 0, phase == .answering {
                phase = .awaitingHead
                arm(timeouts.head, context: context)
            }
        }
        context.write(data, promise: promise)
    }

    /// A request's end was read: the head deadline starts once every request so far is answered.
    private func requestRead(context: ChannelHandlerContext) {
        if unanswered == 0 {
            phase = .awaitingHead
            arm(timeouts.head, context: context)
        } else {
            phase = .answering
            disarm()
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .upgradeComplete = event as? HTTPServerUpgradeEvents {
            phase = .handedOver
            disarm()
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch phase {
        case .handedOver:
            context.fireErrorCaught(error)
        case .closing:
            break
        case .awaitingHead, .readingBody, .answering:
            guard error is HTTPParserError else {
                context.fireErrorCaught(error)
                return
            }
            guard routerServes else {
                reject(context: context)
                return
            }
            phase = .awaitingHead
            arm(timeouts.head, context: context)
            context.fireErrorCaught(error)
        }
    }

    /// Answers 400 and closes once it is written (or at the head deadline, if the peer does not read).
    private func reject(context: ChannelHandlerContext) {
        metrics?.refused(HTTPErrorReply.malformed.error.code, via: .http)
        phase = .closing
        arm(timeouts.head, context: context)
        let parts = HTTPErrorReply.malformed.parts
        for part in parts.dropLast() { context.write(Self.wrapOutboundOut(part), promise: nil) }
        let channel = context.channel
        let quietly = !routerServes
        context.writeAndFlush(Self.wrapOutboundOut(parts[parts.count - 1])).whenComplete { _ in
            Self.close(channel, quietly: quietly)
        }
    }

    /// Closes the connection. While no request has reached the router (`quietly`), the WebSocket upgrade handler
    /// still waits for a first head: it is told the input closed first, so that it gives up as on a peer that
    /// left (Hummingbird logs an upgrade that fails any other way as an error, one line per attacking connection).
    private static func close(_ channel: any Channel, quietly: Bool) {
        if quietly { channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed) }
        channel.close(promise: nil)
    }

    /// Closes the connection after `timeout` (stretched by up to a quarter, at random: see ``spread(_:)``) unless
    /// re-armed, disarmed or handed over first.
    private func arm(_ timeout: TimeAmount, context: ChannelHandlerContext) {
        disarm()
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: Self.spread(timeout)) { [self] in
            deadline = nil
            guard phase != .handedOver else { return }
            if phase != .closing { metrics?.httpTimedOut() }
            phase = .closing
            Self.close(context.channel, quietly: !routerServes)
        }
    }

    /// A deadline between `timeout` and 1.25 × `timeout`, drawn at random. Connections opened together (an attacker
    /// opening a thousand at once, and reopening each as soon as it is closed) would otherwise all time out in the
    /// same instant, every `timeout`, and the server's normal clients would wait behind that burst of closes and
    /// reconnections. Never shorter than configured, so a slow honest client keeps all of its time.
    static func spread(_ timeout: TimeAmount) -> TimeAmount {
        guard timeout.nanoseconds > 0 else { return timeout }
        return .nanoseconds(timeout.nanoseconds + Int64.random(in: 0...(timeout.nanoseconds / 4)))
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }
}
