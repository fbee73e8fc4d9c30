/// The layout of an RTP header extension block (RFC 3550 §5.3.1, RFC 8285 §4).
public enum RTPHeaderExtensionForm: Hashable, Sendable {
    /// RFC 8285 §4.2: profile 0xBEDE, elements with a 4-bit id (1-14) and 1-16 bytes of data.
    case oneByte
    /// RFC 8285 §4.3: profile 0x100 + 4 application bits, elements with an 8-bit id (1-255) and 0-255 bytes.
    case twoByte(appBits: UInt8)
    /// Any other profile: an opaque block this module does not split into elements (RFC 3550 §5.3.1).
    case opaque(profile: UInt16)

    /// The "defined by profile" value of RFC 8285 §4.2.
    public static let oneByteProfile: UInt16 = 0xBEDE
    /// The two-byte form's profile with its application bits masked out (RFC 8285 §4.3).
    public static let twoByteProfile: UInt16 = 0x1000

    /// The form a received "defined by profile" field announces.
    public init(profile: UInt16) {
        if profile == Self.oneByteProfile {
            self = .oneByte
        } else if profile & 0xFFF0 == Self.twoByteProfile {
            self = .twoByte(appBits: UInt8(profile & 0x0F))
        } else {
            self = .opaque(profile: profile)
        }
    }

    /// The "defined by profile" field written for this form.
    public var profile: UInt16 {
        switch self {
        case .oneByte: Self.oneByteProfile
        case let .twoByte(bits): Self.twoByteProfile | UInt16(bits & 0x0F)
        case let .opaque(profile): profile
        }
    }
}
