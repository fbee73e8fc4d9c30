/// The rules a signal must follow, checked by ``Session/signal(type:data:to:retryAfterReconnect:)`` before
/// anything is sent, with the same codes the server uses when it checks them again.
///
/// - type: at most ``maxTypeLength`` characters, each one of `A-Z a-z 0-9 - _ ~` (empty is allowed) → 1461;
/// - data: at most ``maxDataBytes`` bytes of UTF-8 → 1413.
public enum SignalLimits {
    /// Longest signal type, in characters (all ASCII).
    public static let maxTypeLength = 128
    /// Largest signal payload, in UTF-8 bytes.
    public static let maxDataBytes = 8 * 1024

    /// Throws ``SessionError/invalidSignalType(_:)`` or ``SessionError/signalDataTooLong(_:)``.
    public static func validate(type: String, data: String) throws(SessionError) {
        var length = 0
        for byte in type.utf8 {
            length += 1
            guard isAllowed(byte) else {
                throw .invalidSignalType("type may contain only A-Z a-z 0-9 - _ ~")
            }
        }
        guard length <= maxTypeLength else {
            throw .invalidSignalType("type is \(length) characters, the limit is \(maxTypeLength)")
        }
        let bytes = data.utf8.count
        guard bytes <= maxDataBytes else {
            throw .signalDataTooLong("data is \(bytes) bytes, the limit is \(maxDataBytes)")
        }
    }

    private static func isAllowed(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
