import NIOCore

/// The whole pipeline of a connection over the caps (``ConnectionLimiter``): once the connection is active it
/// writes the 503 reply (``HTTPErrorReply/refused(_:)``) without reading the request, and closes. Runs on the
/// channel's event loop only.
final class RefusalHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let reply: HTTPErrorReply
    private var answered = false

    init(reply: HTTPErrorReply) {
        self.reply = reply
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { answer(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        answer(context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    private func answer(context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        let channel = context.channel
        context.writeAndFlush(Self.wrapOutboundOut(reply.bytes)).whenComplete { _ in channel.close(promise: nil) }
    }
}
