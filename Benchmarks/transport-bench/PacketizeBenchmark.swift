import CSRTP
import TokKitRTP
import TokKitSRTP

/// The send path per packet: TokKit writes the RTP header and payload (`RTPHeader.write(payload:into:)`) and
/// protects it (`SRTPSession.protectRTP`), against raw libsrtp `srtp_protect` on the same packets prebuilt
/// (copied into the buffer, sequence number patched). Alternating rounds, same run; prints ns/packet and the
/// ratio for an audio-like (172 B) and a video-like (1112 B) packet per profile.
func runPacketizeBenchmark(packets: Int) {
    print("RTP packetize + SRTP protect, \(packets) packets per round, 5 rounds each, median round")
    for profile in SRTPProfile.allCases {
        for (name, payloadLength, payloadType, step) in [("audio", 160, UInt8(111), UInt32(960)),
                                                          ("video", 1100, UInt8(96), UInt32(3000))] {
            let material = try! SRTPKeyingMaterial(profile: profile,
                                                   key: (0..<profile.keyLength).map { UInt8($0) },
                                                   salt: (0..<profile.saltLength).map { UInt8($0 + 100) })
            let tokkit = try! SRTPSession(material: material, direction: .outbound)
            let raw = RawSession(material: material)
            let payload = UnsafeMutableRawBufferPointer.allocate(byteCount: payloadLength, alignment: 16)
            payload.initializeMemory(as: UInt8.self, repeating: 0x5A)
            let prebuilt = UnsafeMutableRawBufferPointer.allocate(byteCount: 12 + payloadLength, alignment: 16)
            let header = RTPHeader(payloadType: payloadType, sequenceNumber: 0, timestamp: 0, ssrc: 0x1122_3344)
            let length = try! header.write(payload: UnsafeRawBufferPointer(payload), into: prebuilt)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: length + 64, alignment: 16)
            defer { payload.deallocate(); prebuilt.deallocate(); buffer.deallocate() }

            var tokkitRounds: [Double] = [], rawRounds: [Double] = []
            var tokkitSeq: UInt16 = 0, rawSeq: UInt16 = 0, timestamp: UInt32 = 0
            for _ in 0..<5 {
                tokkitRounds.append(measure(packets) {
                    tokkitSeq &+= 1
                    timestamp &+= step
                    let h = RTPHeader(marker: false, payloadType: payloadType, sequenceNumber: tokkitSeq,
                                      timestamp: timestamp, ssrc: 0x1122_3344)
                    let n = try! h.write(payload: UnsafeRawBufferPointer(payload), into: buffer)
                    _ = try! tokkit.protectRTP(buffer, length: n)
                })
                rawRounds.append(measure(packets) {
                    rawSeq &+= 1
                    buffer.copyMemory(from: UnsafeRawBufferPointer(prebuilt))
                    buffer[2] = UInt8(rawSeq >> 8)
                    buffer[3] = UInt8(rawSeq & 0xFF)
                    var len = Int32(length)
                    _ = srtp_protect(raw.session, buffer.baseAddress, &len)
                })
            }
            let t = median(tokkitRounds), r = median(rawRounds)
            let bits = Double(length * 8)
            print("  \(profile) \(name) \(length) B: TokKit write+protect \(fmt(t)) ns/pkt (\(fmt(bits / t)) Gbit/s), "
                  + "raw copy+srtp_protect \(fmt(r)) ns/pkt (\(fmt(bits / r)) Gbit/s), ratio \(fmt(t / r, 3))")
        }
    }
}
