// transport-bench: figures for the secure transport (not a test; nothing here asserts).
//   swift run -c release transport-bench [--packets N] [--handshakes N]
// 1. SRTP protect throughput of TokKitSRTP's wrapper vs raw libsrtp `srtp_protect` on the same packets in the
//    same run (ratio).
// 2. RTP packetize + SRTP protect (TokKit's RTP writer + SRTPSession) vs raw `srtp_protect` on prebuilt packets
//    (ratio), 172 B audio-like and 1112 B video-like packets.
// 3. DTLS-SRTP handshake time over ICE on 127.0.0.1 (median of N).

let arguments = CommandLine.arguments
func option(_ name: String, default value: Int) -> Int {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count, let v = Int(arguments[i + 1]), v > 0
    else { return value }
    return v
}

runSRTPBenchmark(packets: option("--packets", default: 200_000))
runPacketizeBenchmark(packets: option("--packets", default: 200_000))
await runHandshakeBenchmark(count: option("--handshakes", default: 20))
