import TokKitRTP

/// Bytes from a hex string; spaces and newlines are ignored.
func hex(_ text: String) -> [UInt8] {
    let digits = text.filter { !$0.isWhitespace }.map { UInt8(String($0), radix: 16)! }
    precondition(digits.count % 2 == 0, "odd hex digit count")
    return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
}

/// Parses an RTP packet and hands the view to `body` while the bytes are alive.
func withRTP<R>(_ bytes: [UInt8], _ body: (RTPPacketView) throws -> R) throws -> R {
    try bytes.withUnsafeBytes { raw in try body(try RTPPacketView(parsing: raw)) }
}

/// The typed error an RTP parse of `bytes` throws, or nil if it parses.
func rtpError(_ bytes: [UInt8]) -> RTPError? {
    bytes.withUnsafeBytes { raw in
        do throws(RTPError) {
            _ = try RTPPacketView(parsing: raw)
            return nil
        } catch { return error }
    }
}
