import Synchronization
import TokKitDTLS
import TokKitICE
import TokKitICETestSupport
import TokKitSRTP

/// Collects decrypted media (bounded: keeps the first 10 000 packets).
final class MediaInbox: Sendable {
    let packets = Mutex<[(MediaPacketKind, [UInt8])]>([])
    var rtp: [[UInt8]] { packets.withLock { $0.filter { $0.0 == .rtp }.map(\.1) } }
    var rtcp: [[UInt8]] { packets.withLock { $0.filter { $0.0 == .rtcp }.map(\.1) } }
    var count: Int { packets.withLock { $0.count } }
    func handler() -> DTLSTransport.MediaHandler {
        { [self] kind, bytes in packets.withLock { if $0.count < 10_000 { $0.append((kind, Array(bytes))) } } }
    }
}

/// Two DTLS transports over a connected loopback ICE pair: `a` on the controlling agent, `b` on the
/// controlled one.
final class SecurePair: Sendable {
    let ice: AgentPair
    let a: DTLSTransport
    let b: DTLSTransport
    let aInbox = MediaInbox()
    let bInbox = MediaInbox()

    /// `aRole` is a's DTLS role (b takes the other). `aTrusts` overrides the fingerprint a expects.
    init(aRole: DTLSRole, profilesA: [SRTPProfile] = [.aeadAes128Gcm, .aes128CmSha1_80],
         profilesB: [SRTPProfile] = [.aeadAes128Gcm, .aes128CmSha1_80], aTrusts: DTLSFingerprint? = nil) throws {
        ice = try AgentPair()
        let certA = try DTLSCertificate(), certB = try DTLSCertificate()
        a = try DTLSTransport(ice: ice.controlling, role: aRole, certificate: certA,
                              remoteFingerprint: aTrusts ?? certB.fingerprint, profiles: profilesA)
        b = try DTLSTransport(ice: ice.controlled, role: aRole == .client ? .server : .client, certificate: certB,
                              remoteFingerprint: certA.fingerprint, profiles: profilesB)
        a.setMediaHandler(aInbox.handler())
        b.setMediaHandler(bInbox.handler())
    }

    /// Connects ICE (bounded wait) and starts both handshakes.
    func connectICEAndStart() async throws -> Bool {
        try ice.start()
        guard await eventually(within: .seconds(60), { ice.bothConnected() }) else { return false }
        a.start()
        b.start()
        return true
    }

    func close() async {
        a.close()
        b.close()
        await ice.close()
    }
}

/// Sends `packet` through `transport` (protected in place in a buffer with room for the trailer) and
/// returns the protected bytes that went on the wire.
@discardableResult
func sendMedia(_ packet: [UInt8], through transport: DTLSTransport, rtcp: Bool = false) throws -> [UInt8] {
    var buffer = packet + [UInt8](repeating: 0, count: 32)
    try buffer.withUnsafeMutableBytes { b in
        if rtcp { try transport.sendRTCP(b, length: packet.count) } else { try transport.sendRTP(b, length: packet.count) }
    }
    let overhead = rtcp ? transport.srtpProfile!.rtcpOverhead : transport.srtpProfile!.rtpOverhead
    return Array(buffer[0..<(packet.count + overhead)])
}

func makeRTP(sequence: UInt16, payloadLength: Int = 160) -> [UInt8] {
    var p: [UInt8] = [0x80, 111, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0x03, 0xE8,
                      0xAA, 0xBB, 0xCC, 0xDD]
    p += (0..<payloadLength).map { UInt8(truncatingIfNeeded: $0 &+ Int(sequence)) }
    return p
}

/// A receiver report (PT 201) with no blocks.
func makeRTCP() -> [UInt8] { [0x80, 201, 0x00, 0x01, 0xAA, 0xBB, 0xCC, 0xDD] }
