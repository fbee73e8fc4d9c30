import CSRTP
import TokKitSRTP

/// Protects `packets` RTP packets per round with the wrapper and with raw libsrtp (same policy, same bytes,
/// alternating rounds) and prints ns/packet, throughput and the ratio, per profile and packet size.
func runSRTPBenchmark(packets: Int) {
    print("SRTP protect, \(packets) packets per round, 5 rounds each, median round")
    for profile in SRTPProfile.allCases {
        for payload in [160, 1100] {
            let material = try! SRTPKeyingMaterial(profile: profile,
                                                   key: (0..<profile.keyLength).map { UInt8($0) },
                                                   salt: (0..<profile.saltLength).map { UInt8($0 + 100) })
            let wrapper = try! SRTPSession(material: material, direction: .outbound)
            let raw = RawSession(material: material)
            let template: [UInt8] = [0x80, 96, 0, 0, 0, 0, 0, 0, 0x11, 0x22, 0x33, 0x44]
                + [UInt8](repeating: 0x5A, count: payload)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: template.count + 64, alignment: 16)
            let source = UnsafeMutableRawBufferPointer.allocate(byteCount: template.count, alignment: 16)
            source.copyBytes(from: template)
            let plain = UnsafeRawBufferPointer(source)
            defer { buffer.deallocate(); source.deallocate() }
            var wrapperRounds: [Double] = [], rawRounds: [Double] = []
            // Each session sees its own increasing sequence numbers (libsrtp rejects going back, even outbound).
            var wrapperSeq: UInt16 = 0, rawSeq: UInt16 = 0
            for _ in 0..<5 {
                wrapperRounds.append(measure(packets) {
                    wrapperSeq &+= 1
                    let seq = wrapperSeq
                    buffer.copyMemory(from: plain)
                    buffer[2] = UInt8(seq >> 8); buffer[3] = UInt8(seq & 0xFF)
                    _ = try! wrapper.protectRTP(buffer, length: template.count)
                })
                rawRounds.append(measure(packets) {
                    rawSeq &+= 1
                    let seq = rawSeq
                    buffer.copyMemory(from: plain)
                    buffer[2] = UInt8(seq >> 8); buffer[3] = UInt8(seq & 0xFF)
                    var len = Int32(template.count)
                    _ = srtp_protect(raw.session, buffer.baseAddress, &len)
                })
            }
            let w = median(wrapperRounds), r = median(rawRounds)
            let bytes = Double(template.count)
            print("  \(profile) \(template.count) B: wrapper \(fmt(w)) ns/pkt (\(fmt(bytes * 8 / w)) Gbit/s), "
                  + "raw srtp_protect \(fmt(r)) ns/pkt (\(fmt(bytes * 8 / r)) Gbit/s), ratio \(fmt(w / r, 3))")
        }
    }
}

/// Nanoseconds per call of `body`, over `count` calls.
@inline(never)
func measure(_ count: Int, _ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    for _ in 0..<count { body() }
    let elapsed = clock.now - start
    return Double(elapsed.components.seconds) * 1e9 / Double(count)
        + Double(elapsed.components.attoseconds) / 1e9 / Double(count)
}

func median(_ values: [Double]) -> Double {
    let s = values.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

func fmt(_ v: Double, _ digits: Int = 1) -> String {
    var p = 1.0
    for _ in 0..<digits { p *= 10 }
    let r = (v * p).rounded() / p
    return "\(r)"
}

/// A libsrtp session made directly with the C API, with the policy TokKitSRTP uses for outbound sessions.
final class RawSession {
    let session: srtp_t

    init(material: SRTPKeyingMaterial) {
        var policy = srtp_policy_t()
        let profile = material.profile == .aeadAes128Gcm ? srtp_profile_aead_aes_128_gcm : srtp_profile_aes128_cm_sha1_80
        _ = srtp_crypto_policy_set_from_profile_for_rtp(&policy.rtp, profile)
        _ = srtp_crypto_policy_set_from_profile_for_rtcp(&policy.rtcp, profile)
        policy.ssrc.type = ssrc_any_outbound
        policy.window_size = 1024
        policy.allow_repeat_tx = 1
        var key = material.key + material.salt
        var s: srtp_t?
        let status = key.withUnsafeMutableBufferPointer { k in
            policy.key = k.baseAddress
            return srtp_create(&s, &policy)
        }
        precondition(status == srtp_err_status_ok, "srtp_create: \(status)")
        session = s!
    }

    deinit { srtp_dealloc(session) }
}
