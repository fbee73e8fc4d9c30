/// One direction's SRTP master key and master salt, as exported by DTLS-SRTP (RFC 5764 §4.2).
///
/// Value type, usable from any thread. The bytes are secret: do not log them.
public struct SRTPKeyingMaterial: Sendable, Equatable {
    /// The protection profile the material is for.
    public let profile: SRTPProfile
    /// Master key (``SRTPProfile/keyLength`` bytes).
    public let key: [UInt8]
    /// Master salt (``SRTPProfile/saltLength`` bytes).
    public let salt: [UInt8]

    /// Checks the lengths against the profile.
    public init(profile: SRTPProfile, key: [UInt8], salt: [UInt8]) throws(SRTPError) {
        guard key.count == profile.keyLength else {
            throw .invalidKeyingMaterial(expected: profile.keyLength, got: key.count)
        }
        guard salt.count == profile.saltLength else {
            throw .invalidKeyingMaterial(expected: profile.saltLength, got: salt.count)
        }
        self.profile = profile
        self.key = key
        self.salt = salt
    }

    /// Key followed by salt, the layout libsrtp expects.
    var keyAndSalt: [UInt8] { key + salt }
}
