/// An owned RFC 8285 header extension element, for building packets.
///
/// Keep one ``RTPHeader`` per stream and update values in place with ``RTPHeader/setExtension(id:_:)``: when the
/// length does not change the value's storage is reused, so the send path allocates nothing.
public struct RTPHeaderExtension: Hashable, Sendable {
    /// Local identifier (1-14 for the one-byte form, 1-255 for the two-byte form).
    public var id: UInt8
    /// Element data (1-16 bytes for the one-byte form, 0-255 for the two-byte form).
    public var value: [UInt8]

    public init(id: UInt8, value: [UInt8]) {
        self.id = id
        self.value = value
    }

    /// Whether this element can be written in the one-byte form (RFC 8285 §4.2).
    public var fitsOneByteForm: Bool { (1...14).contains(id) && (1...16).contains(value.count) }
}
