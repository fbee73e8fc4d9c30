import Hummingbird
import TokKitProtocol

/// Builds JSON responses from protocol values.
enum JSONResponse {
    static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: WireCodec.encode(value))))
    }

    static var noContent: Response { Response(status: .noContent) }
}
