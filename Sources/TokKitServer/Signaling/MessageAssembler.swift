import HummingbirdWebSocket
import NIOCore
import TokKitProtocol

/// Joins the data frames of one signaling socket into messages (RFC 6455, 5.4) and enforces what the protocol says
/// about them (Docs/Protocol.md, 6.1): at most `maxBytes` per message whether sent in one frame or in fragments
/// (1009), text that is valid UTF-8 (1007), and fragments in order (1002).
///
/// Holds at most `maxBytes` of one unfinished message. A value type owned by the socket's reader task; not shared.
struct MessageAssembler {
    /// What one frame completed.
    enum Outcome: Equatable {
        /// The frame was a fragment; the message continues.
        case incomplete
        /// A whole text message, valid UTF-8.
        case text([UInt8])
        /// A whole binary message (the protocol has none: the caller answers 1011).
        case binary
        /// The socket must be closed with this code; nothing more is read.
        case close(CloseCode)
    }

    let maxBytes: Int
    /// The message being assembled: its opcode and bytes so far; nil between messages.
    private var pending: (opcode: WebSocketDataFrame.Opcode, bytes: [UInt8])?

    init(maxBytes: Int = ProtocolLimits.maxFrameBytes) {
        self.maxBytes = maxBytes
    }

    /// Takes the next data frame of the socket.
    mutating func push(_ opcode: WebSocketDataFrame.Opcode, fin: Bool, data: ByteBuffer) -> Outcome {
        let view = data.readableBytesView
        var message: (opcode: WebSocketDataFrame.Opcode, bytes: [UInt8])
        switch opcode {
        case .text, .binary:
            guard pending == nil else { return .close(.protocolError) }
            guard view.count <= maxBytes else { return .close(.messageTooBig) }
            message = (opcode, Array(view))
        case .continuation:
            guard let started = pending else { return .close(.protocolError) }
            pending = nil
            guard view.count <= maxBytes - started.bytes.count else { return .close(.messageTooBig) }
            message = started
            message.bytes.append(contentsOf: view)
        }
        guard fin else {
            pending = message
            return .incomplete
        }
        switch message.opcode {
        case .text:
            guard String(validating: message.bytes, as: UTF8.self) != nil else { return .close(.invalidPayload) }
            return .text(message.bytes)
        case .binary, .continuation:
            return .binary
        }
    }
}
