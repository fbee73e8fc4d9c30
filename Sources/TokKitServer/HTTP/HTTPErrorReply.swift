import NIOCore
import NIOHTTP1
import TokKitProtocol

/// A complete HTTP/1.1 error response with the REST error body (`{"code", "message"}`, Docs/Protocol.md 5) and
/// `Connection: close`, for the connection layer, which answers before any route runs: 400 to a malformed request,
/// 503 to a connection over the caps. As response parts for a pipeline with an HTTP encoder, or as raw bytes for one
/// without. Value type.
struct HTTPErrorReply: Sendable {
    let status: HTTPResponseStatus
    let error: ProtocolError

    static let malformed = HTTPErrorReply(
        status: .badRequest, error: ProtocolError(.invalidParameter, "malformed HTTP request"))

    static func refused(_ refusal: ConnectionLimiter.Refusal) -> HTTPErrorReply {
        let message =
            switch refusal {
            case .serverFull: "too many connections"
            case .addressFull: "too many connections from this address"
            }
        return HTTPErrorReply(status: .serviceUnavailable, error: ProtocolError(.limitReached, message))
    }

    private var body: [UInt8] { WireCodec.encode(RestError(error)) }

    private var headers: HTTPHeaders {
        [
            "Content-Type": "application/json; charset=utf-8", "Content-Length": String(body.count),
            "Connection": "close",
        ]
    }

    /// The response as parts, for an `HTTPResponseEncoder`.
    var parts: [HTTPServerResponsePart] {
        [
            .head(HTTPResponseHead(version: .http1_1, status: status, headers: headers)),
            .body(.byteBuffer(ByteBuffer(bytes: body))), .end(nil),
        ]
    }

    /// The response as bytes on the wire.
    var bytes: ByteBuffer {
        var text = "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        var buffer = ByteBuffer(string: text + "\r\n")
        buffer.writeBytes(body)
        return buffer
    }
}
