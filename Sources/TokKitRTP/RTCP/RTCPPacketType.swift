/// RTCP packet types (RFC 3550 §12.1, RFC 4585 §6.1, RFC 3611).
public enum RTCPPacketType {
    public static let senderReport: UInt8 = 200
    public static let receiverReport: UInt8 = 201
    public static let sourceDescription: UInt8 = 202
    public static let goodbye: UInt8 = 203
    public static let applicationDefined: UInt8 = 204
    /// Transport-layer feedback (RFC 4585 §6.2): generic NACK, transport-wide CC.
    public static let transportFeedback: UInt8 = 205
    /// Payload-specific feedback (RFC 4585 §6.3): PLI, SLI, RPSI, FIR, application layer (REMB).
    public static let payloadFeedback: UInt8 = 206
    public static let extendedReport: UInt8 = 207
}
