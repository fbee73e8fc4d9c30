import Testing
import TokKitSRTP

/// A minimal RTP packet: V=2, PT 96, the given sequence number, SSRC 0x11223344, `payloadLength` bytes.
func makeRTP(sequence: UInt16, payloadLength: Int = 160) -> [UInt8] {
    var p: [UInt8] = [0x80, 96, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0x03, 0xE8,
                      0x11, 0x22, 0x33, 0x44]
    p += (0..<payloadLength).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
    return p
}

/// A minimal RTCP receiver report with no report blocks (8 bytes).
func makeRTCP() -> [UInt8] { [0x80, 201, 0x00, 0x01, 0x11, 0x22, 0x33, 0x44] }

func material(_ profile: SRTPProfile, seed: UInt8) throws -> SRTPKeyingMaterial {
    try SRTPKeyingMaterial(profile: profile,
                           key: (0..<profile.keyLength).map { UInt8(truncatingIfNeeded: Int(seed) &+ $0) },
                           salt: (0..<profile.saltLength).map { UInt8(truncatingIfNeeded: Int(seed) &* 3 &+ $0) })
}

/// Protects `packet` into a buffer with room for the trailer and returns the protected bytes.
func protect(_ packet: [UInt8], with session: SRTPSession, rtcp: Bool = false) throws -> [UInt8] {
    var buffer = packet + [UInt8](repeating: 0, count: 32)
    let n = try buffer.withUnsafeMutableBytes { b in
        rtcp ? try session.protectRTCP(b, length: packet.count) : try session.protectRTP(b, length: packet.count)
    }
    return Array(buffer[0..<n])
}

/// Unprotects `packet` and returns the plain bytes.
func unprotect(_ packet: [UInt8], with session: SRTPSession, rtcp: Bool = false) throws -> [UInt8] {
    var buffer = packet
    let n = try buffer.withUnsafeMutableBytes { b in
        rtcp ? try session.unprotectRTCP(b, length: packet.count) : try session.unprotectRTP(b, length: packet.count)
    }
    return Array(buffer[0..<n])
}

@Suite struct SRTPSessionTests {
    @Test(arguments: SRTPProfile.allCases)
    func rtpRoundTrip(profile: SRTPProfile) throws {
        let sender = try SRTPSession(material: material(profile, seed: 1), direction: .outbound)
        let receiver = try SRTPSession(material: material(profile, seed: 1), direction: .inbound)
        for seq in UInt16(1000)..<1010 {
            let plain = makeRTP(sequence: seq)
            let secured = try protect(plain, with: sender)
            #expect(secured.count == plain.count + profile.rtpOverhead)
            #expect(Array(secured[0..<12]) == Array(plain[0..<12]), "the header stays in the clear")
            #expect(Array(secured[12..<plain.count]) != Array(plain[12...]), "the payload is encrypted")
            #expect(try unprotect(secured, with: receiver) == plain)
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func rtcpRoundTrip(profile: SRTPProfile) throws {
        let sender = try SRTPSession(material: material(profile, seed: 9), direction: .outbound)
        let receiver = try SRTPSession(material: material(profile, seed: 9), direction: .inbound)
        for _ in 0..<3 {
            let plain = makeRTCP()
            let secured = try protect(plain, with: sender, rtcp: true)
            #expect(secured.count == plain.count + profile.rtcpOverhead)
            #expect(try unprotect(secured, with: receiver, rtcp: true) == plain)
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func tamperedPacketFailsAuthentication(profile: SRTPProfile) throws {
        let sender = try SRTPSession(material: material(profile, seed: 2), direction: .outbound)
        let receiver = try SRTPSession(material: material(profile, seed: 2), direction: .inbound)
        var secured = try protect(makeRTP(sequence: 5), with: sender)
        secured[20] ^= 0x01
        #expect(throws: SRTPError.authenticationFailed) { try unprotect(secured, with: receiver) }
        var securedRTCP = try protect(makeRTCP(), with: sender, rtcp: true)
        securedRTCP[6] ^= 0x80
        #expect(throws: SRTPError.authenticationFailed) { try unprotect(securedRTCP, with: receiver, rtcp: true) }
    }

    @Test(arguments: SRTPProfile.allCases)
    func wrongKeyFailsAuthentication(profile: SRTPProfile) throws {
        let sender = try SRTPSession(material: material(profile, seed: 3), direction: .outbound)
        let receiver = try SRTPSession(material: material(profile, seed: 4), direction: .inbound)
        let secured = try protect(makeRTP(sequence: 5), with: sender)
        #expect(throws: SRTPError.authenticationFailed) { try unprotect(secured, with: receiver) }
    }

    @Test(arguments: SRTPProfile.allCases)
    func replayedPacketIsDropped(profile: SRTPProfile) throws {
        let sender = try SRTPSession(material: material(profile, seed: 5), direction: .outbound)
        let receiver = try SRTPSession(material: material(profile, seed: 5), direction: .inbound)
        let first = try protect(makeRTP(sequence: 7), with: sender)
        let second = try protect(makeRTP(sequence: 8), with: sender)
        _ = try unprotect(first, with: receiver)
        _ = try unprotect(second, with: receiver)
        #expect(throws: SRTPError.replayed) { try unprotect(first, with: receiver) }
        #expect(throws: SRTPError.replayed) { try unprotect(second, with: receiver) }
        let rtcp = try protect(makeRTCP(), with: sender, rtcp: true)
        _ = try unprotect(rtcp, with: receiver, rtcp: true)
        #expect(throws: SRTPError.replayed) { try unprotect(rtcp, with: receiver, rtcp: true) }
    }

    @Test func bufferWithoutRoomForTheTagIsRejected() throws {
        let sender = try SRTPSession(material: material(.aes128CmSha1_80, seed: 6), direction: .outbound)
        var packet = makeRTP(sequence: 1)
        let count = packet.count
        #expect(throws: SRTPError.bufferTooSmall(needed: count + 10)) {
            try packet.withUnsafeMutableBytes { b in try sender.protectRTP(b, length: count) }
        }
    }

    @Test func malformedPacketsGetATypedError() throws {
        let sender = try SRTPSession(material: material(.aeadAes128Gcm, seed: 7), direction: .outbound)
        let receiver = try SRTPSession(material: material(.aeadAes128Gcm, seed: 7), direction: .inbound)
        var tooShort = [UInt8](repeating: 0x80, count: 11) + [UInt8](repeating: 0, count: 40)
        var badVersion = makeRTP(sequence: 1); badVersion[0] = 0x40
        badVersion += [UInt8](repeating: 0, count: 32)
        var csrcOverflow = [UInt8](repeating: 0, count: 20); csrcOverflow[0] = 0x8F  // 15 CSRCs in 20 bytes
        csrcOverflow += [UInt8](repeating: 0, count: 32)
        var extensionOverflow = makeRTP(sequence: 1, payloadLength: 4); extensionOverflow[0] = 0x90
        extensionOverflow[14] = 0xFF; extensionOverflow[15] = 0xFF
        extensionOverflow += [UInt8](repeating: 0, count: 32)
        for (packet, length) in [(tooShort, 11), (badVersion, badVersion.count - 32),
                                 (csrcOverflow, 20), (extensionOverflow, extensionOverflow.count - 32)] {
            var p = packet
            #expect(throws: SRTPError.malformedPacket) {
                try p.withUnsafeMutableBytes { b in try sender.protectRTP(b, length: length) }
            }
            #expect(throws: SRTPError.malformedPacket) {
                try p.withUnsafeMutableBytes { b in try receiver.unprotectRTP(b, length: length) }
            }
        }
        // A length beyond the buffer is refused instead of read past.
        #expect(throws: SRTPError.malformedPacket) {
            try tooShort.withUnsafeMutableBytes { b in try receiver.unprotectRTP(b, length: b.count + 1) }
        }
        // An RTP header alone (no tag) cannot be SRTP.
        var headerOnly = makeRTP(sequence: 1, payloadLength: 0)
        #expect(throws: SRTPError.malformedPacket) {
            try headerOnly.withUnsafeMutableBytes { b in try receiver.unprotectRTP(b, length: 12) }
        }
    }

    @Test func keyingMaterialLengthsAreChecked() {
        #expect(throws: SRTPError.invalidKeyingMaterial(expected: 16, got: 15)) {
            try SRTPKeyingMaterial(profile: .aes128CmSha1_80, key: [UInt8](repeating: 1, count: 15),
                                   salt: [UInt8](repeating: 1, count: 14))
        }
        #expect(throws: SRTPError.invalidKeyingMaterial(expected: 12, got: 14)) {
            try SRTPKeyingMaterial(profile: .aeadAes128Gcm, key: [UInt8](repeating: 1, count: 16),
                                   salt: [UInt8](repeating: 1, count: 14))
        }
    }
}
