/// The client side of a WebSocket written by hand on a ``RawTCP`` connection: the handshake and masked text frames
/// (RFC 6455, 4.1 and 5.2), for clients that must misbehave in ways a WebSocket library will not (not reading).
extension RawTCP {
    /// Sends the upgrade request for `path` and waits for the 101; false if it did not come within `timeout`.
    func upgradeToWebSocket(path: String = "/signaling", within timeout: Duration = .seconds(5)) async -> Bool {
        await send(
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        return await readHead(within: timeout).status == 101
    }

    /// Sends one masked text frame.
    @discardableResult
    func sendTextFrame(_ text: String) async -> Bool {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        switch payload.count {
        case 0..<126: frame.append(0x80 | UInt8(payload.count))
        case 126..<65_536: frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: frame += [0x80 | 127] + (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return await send(frame)
    }
}
