import Foundation
import CMallocCounter
import Glibc
import Synchronization
import TokKitRTP
import TokKitSDP

/// Micro-benchmarks of the RTC layers (RTP/RTCP, SDP, VP8 payloads, the PeerConnection packet path): median thread CPU time per operation over 7 rounds (CPU time, so that a
/// loaded machine does not inflate the figures). Run with `swift run -c release rtc-bench`. Figures are for
/// comparisons, never for assertions.
@main struct RTCBench {
    /// Prints and returns the median nanoseconds per operation.
    @discardableResult
    static func measure(_ name: String, iterations: Int, _ body: () throws -> Int) rethrows -> Double {
        var samples: [Double] = []
        var sink = 0
        for _ in 0 ..< 7 {
            let start = threadCPUTime()
            for _ in 0 ..< iterations { sink &+= try body() }
            samples.append((threadCPUTime() - start) / Double(iterations))
        }
        samples.sort()
        print(name.padding(toLength: 44, withPad: " ", startingAt: 0), String(format: "%10.1f ns/op", samples[3]),
              sink == 42 ? "" : "")
        return samples[3]
    }

    /// Nanoseconds of CPU time this thread has used.
    static func threadCPUTime() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) * 1e9 + Double(ts.tv_nsec)
    }

    static func main() async throws {
        // A 1200-byte VP8 packet with Chromium's three one-byte extensions.
        var header = RTPHeader(marker: true, payloadType: 96, sequenceNumber: 1, timestamp: 3000, ssrc: 0x1234_5678)
        header.setExtension(id: 2, [0x12, 0x34, 0x56])
        header.setExtension(id: 3, [0x00, 0x2A])
        header.setExtension(id: 4, Array("1".utf8))
        let payload = [UInt8](repeating: 0xAB, count: 1172)
        var packet = [UInt8](repeating: 0, count: 1500)
        let length = try payload.withUnsafeBytes { p in
            try packet.withUnsafeMutableBytes { try header.write(payload: p, into: $0) }
        }
        let map = RTPHeaderExtensionMap(mid: 4, absoluteSendTime: 2, transportWideCC: 3)

        let parse = try measure("RTP parse + mid/abs-send-time/twcc", iterations: 1_000_000) {
            try packet.withUnsafeBytes { raw in
                let view = try RTPPacketView(parsing: UnsafeRawBufferPointer(rebasing: raw[..<length]))
                return Int(view.sequenceNumber) &+ (view.midBytes(map)?.count ?? 0)
                    &+ Int(view.absoluteSendTime(map) ?? 0) &+ Int(view.transportWideSequenceNumber(map) ?? 0)
            }
        }
        var out = [UInt8](repeating: 0, count: 1500)
        let twcc = header.extensions.firstIndex { $0.id == 3 }!
        try measure("RTP header write (3 extensions)", iterations: 1_000_000) {
            header.sequenceNumber &+= 1
            header.extensions[twcc].value[0] = UInt8(truncatingIfNeeded: header.sequenceNumber >> 8)
            header.extensions[twcc].value[1] = UInt8(truncatingIfNeeded: header.sequenceNumber)
            return try out.withUnsafeMutableBytes { try header.write(into: $0) }
        }
        measure("RTP demux classify", iterations: 10_000_000) {
            packet.withUnsafeBytes { MultiplexedPacketKind(classifying: $0) == .rtp ? 1 : 0 }
        }

        let compound = try RTCPCompoundPacket(packets: [
            .senderReport(RTCPSenderReport(ssrc: 1, ntpTimestamp: NTPTimestamp(rawValue: 1), rtpTimestamp: 2,
                                           packetCount: 3, octetCount: 4, reports: [RTCPReportBlock(ssrc: 5)])),
            .sourceDescription(RTCPSourceDescription(chunks: [.init(source: 1, cname: "vHJ2IRokHzt3XiYr")])),
        ]).serialized()
        try measure("RTCP SR+SDES compound parse", iterations: 200_000) {
            try RTCPCompoundPacket(parsing: compound).packets.count
        }
        let lost = (0 ..< 20).map { UInt16(65530) &+ UInt16($0 * 2) }
        try measure("RTCP NACK write (20 lost, no allocation)", iterations: 1_000_000) {
            try out.withUnsafeMutableBytes {
                try RTCPGenericNACK.write(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: lost, into: $0)
            }
        }
        // Transport-wide CC: one 50 ms feedback period of a ~2.5 Mb/s call (12 packets 1 ms apart per 4 ms, one
        // lost in 40): recording every packet, then writing the message, against the NACK write above.
        let recorder = try TransportFeedbackRecorder()
        var twccSequence: UInt16 = 0
        var clock: UInt64 = 1_000_000_000
        try measure("TWCC record 100 packets + write feedback", iterations: 100_000) {
            for i in 0 ..< 100 {
                clock += i % 12 == 0 ? 4_000_000 : 1_000_000
                if i % 40 != 7 { recorder.record(twccSequence, arrivalNanoseconds: clock) }
                twccSequence &+= 1
            }
            return try out.withUnsafeMutableBytes {
                try recorder.writeFeedback(senderSSRC: 1, mediaSSRC: 2, into: $0) ?? 0
            }
        }

        // The media sender's side of such a message: a fresh decode against what the receive path does (walk the
        // compound, decode into the one value it keeps), and the heap allocations of the latter.
        let statuses: [RTCPTransportWideFeedback.PacketStatus] = (0 ..< 100).map { i in
            i % 40 == 7 ? .notReceived : .receivedSmallDelta(i % 12 == 0 ? 16 : 4)
        }
        let message = try RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 0, referenceTime: 0,
                                                    feedbackPacketCount: 0, statuses: statuses).serialized()
        try measure("TWCC feedback parse (new value)", iterations: 200_000) {
            try message.withUnsafeBytes { try RTCPTransportWideFeedback(parsing: $0).statuses.count }
        }
        var kept = try message.withUnsafeBytes { try RTCPTransportWideFeedback(parsing: $0) }
        func walkAndParse() throws -> Int {
            try message.withUnsafeBytes { raw in
                var n = 0
                try RTCPCompoundPacket.forEachPacket(in: raw) { (_, packet) throws(RTPError) in
                    try kept.parse(packet)
                    n += kept.statuses.count
                }
                return n
            }
        }
        try measure("TWCC feedback walk + parse (kept value)", iterations: 200_000) { try walkAndParse() }
        let allocationsBefore = tk_malloc_count()
        for _ in 0 ..< 10_000 { _ = try walkAndParse() }
        print("TWCC feedback receive allocations: \(tk_malloc_count() - allocationsBefore) in 10000 messages")

        try congestionControl(packet: &packet, length: length, parse: parse)

        let offerPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/seeds/sdp/chromium-offer")
        let offerText = try String(contentsOf: offerPath, encoding: .utf8)
        try measure("SDP parse Chromium offer (7 KB)", iterations: 500) {
            try SessionDescription(parsing: offerText).media.count
        }
        let offer = try SessionDescription(parsing: offerText)
        let options = SDPLocalDescriptionOptions(
            iceUfrag: "TkKt", icePassword: "tokkit-ice-password-0123", fingerprint: SDPFingerprint(digest: Array(0 ..< 32)),
            audio: SDPLocalMedia(track: .init(streamID: "s", trackID: "a", ssrc: 1, cname: "c")),
            video: SDPLocalMedia(track: .init(streamID: "s", trackID: "v", ssrc: 2, cname: "c")), sessionID: 1)
        try measure("SDP answer + serialize", iterations: 2000) {
            try SessionDescription.answer(to: offer, options).sdp.utf8.count
        }
        try vp8()
        try await PeerPathBench.run()
    }

    /// VP8 payloads: packetizing and reassembling a 4 KB frame (30 fps at ~1 Mbps) and a 40 KB key frame.
    /// The send side of transport-wide CC, as ratios to parsing one RTP header (measured above, same run):
    /// per packet, what `PeerConnection.sendRTP` adds (clock read, lock, next number, record, the number's two bytes
    /// written at the offset found once); per feedback, matching a 100-packet message against the send record and the GCC update.
    static func congestionControl(packet: inout [UInt8], length: Int, parse: Double) throws {
        let history = try TransportSendHistory()
        let counter = Mutex<UInt16>(0)
        // The transport-wide element's value in this packet (one-byte form, id 3): found once, as SendTrack does.
        let offset = try packet.withUnsafeBytes { raw in
            let value = try RTPPacketView(parsing: UnsafeRawBufferPointer(rebasing: raw[..<length])).extensions.value(id: 3)!
            return value.baseAddress! - raw.baseAddress!
        }
        let perPacket = measure("TWCC send: stamp + record, per packet", iterations: 1_000_000) {
            var ts = timespec()
            clock_gettime(CLOCK_MONOTONIC, &ts)
            let now = Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
            let sequence = counter.withLock { c in
                defer { c &+= 1 }
                history.record(c, sendTime: now, size: length)
                return c
            }
            // PeerConnection writes at the offset its SendTrack found once (the header layout never changes).
            return packet.withUnsafeMutableBytes { raw in
                raw[offset] = UInt8(sequence >> 8)
                raw[offset + 1] = UInt8(truncatingIfNeeded: sequence)
                return Int(sequence)
            }
        }
        let rewrite = try measure("  (RTPPacketView.setExtension, general)", iterations: 1_000_000) {
            try packet.withUnsafeMutableBytes { raw in
                try RTPPacketView.setExtension(id: 3, 7, in: UnsafeMutableRawBufferPointer(rebasing: raw[..<length]))
                    ? 1 : 0
            }
        }
        _ = rewrite
        // One 50 ms feedback of a ~2.5 Mb/s call: 100 packets 0.5 ms apart (bursts of 12 every 4 ms on the
        // receiver as in the TWCC line above), one lost in 40. Each iteration first records the 100 packets (the
        // per-packet line's work, subtracted below) so the message matches.
        var statuses: [RTCPTransportWideFeedback.PacketStatus] = []
        for i in 0 ..< 100 { statuses.append(i % 40 == 7 ? .notReceived : .receivedSmallDelta(i % 12 == 0 ? 16 : 4)) }
        var feedback = RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 0, referenceTime: 0,
                                                 feedbackPacketCount: 0, statuses: statuses)
        let sendHistory = try TransportSendHistory()
        var estimator = SendSideBandwidthEstimator(.init(start: 2_500_000, maximum: 2_500_000))
        var results: [TransportPacketResult] = []
        results.reserveCapacity(256)
        var sendClock: Int64 = 0
        var sequence: UInt16 = 0
        /// Records 100 packets 0.5 ms apart and returns the first one's number.
        func record100() -> UInt16 {
            let base = sequence
            for _ in 0 ..< 100 {
                sendClock += 500
                sendHistory.record(sequence, sendTime: sendClock, size: 1200)
                sequence &+= 1
            }
            return base
        }
        let recordOnly = measure("  (record 100 packets only)", iterations: 100_000) { Int(record100()) }
        let withFeedback = measure("TWCC feedback: 100 packets matched + GCC", iterations: 100_000) {
            feedback.baseSequenceNumber = record100()
            feedback.referenceTime = UInt32(truncatingIfNeeded: sendClock / 64_000)
            results.removeAll(keepingCapacity: true)
            sendHistory.results(for: feedback, into: &results)
            return estimator.update(now: sendClock, packets: results)
        }
        let perFeedback = withFeedback - recordOnly
        // Heap allocations in steady state (whole process, malloc interposed): 1000 packets, then 100 feedbacks.
        var allocations = tk_malloc_count()
        for _ in 0 ..< 1000 {
            counter.withLock { c in
                history.record(c, sendTime: sendClock, size: length)
                c &+= 1
            }
        }
        let packetAllocations = tk_malloc_count() - allocations
        allocations = tk_malloc_count()
        for _ in 0 ..< 100 {
            feedback.baseSequenceNumber = record100()
            results.removeAll(keepingCapacity: true)
            sendHistory.results(for: feedback, into: &results)
            estimator.update(now: sendClock, packets: results)
        }
        let feedbackAllocations = tk_malloc_count() - allocations
        print("TWCC send side allocations: \(packetAllocations) in 1000 packets, \(feedbackAllocations) in 100 feedbacks")
        print(String(format: "TWCC send side: %.0f ns per packet (%.2fx parsing one RTP header), "
                     + "%.0f ns per 100-packet feedback (%.1fx one RTP parse; %.2fx per packet reported)",
                     perPacket, perPacket / parse, perFeedback, perFeedback / parse, perFeedback / 100 / parse))
    }

    static func vp8() throws {
        let packetizer = try VP8Packetizer()
        let assembler = try VP8FrameAssembler()
        for size in [4_000, 40_000] {
            var frame = [UInt8](repeating: 0x5A, count: size)
            frame[0] = 0x10  // key frame: every frame decodable on its own
            frame.replaceSubrange(3 ..< 10, with: [0x9D, 0x01, 0x2A, 0x80, 0x02, 0xE0, 0x01])
            let count = packetizer.packetCount(frameLength: size)
            measure("VP8 packetize \(size / 1000) KB frame (\(count) packets)", iterations: 20_000) {
                frame.withUnsafeBytes { bytes in
                    var total = 0
                    packetizer.packetize(bytes) { payload, _ in total &+= payload.count }
                    return total
                }
            }
            // The packets of one frame, replayed with fresh sequence numbers and timestamps each iteration.
            var payloads: [[UInt8]] = []
            frame.withUnsafeBytes { bytes in _ = packetizer.packetize(bytes) { p, _ in payloads.append(Array(p)) } }
            var sequence: UInt16 = 0
            var timestamp: UInt32 = 0
            try measure("VP8 assemble \(size / 1000) KB frame (\(count) packets)", iterations: 20_000) {
                timestamp &+= 3000
                var bytes = 0
                for (i, payload) in payloads.enumerated() {
                    try payload.withUnsafeBytes { p in
                        _ = try assembler.insert(sequenceNumber: sequence, timestamp: timestamp,
                                                 marker: i == payloads.count - 1, payload: p)
                    }
                    sequence &+= 1
                    while let event = assembler.next() {
                        if case .frame(let f) = event { bytes &+= f.bytes.count }
                    }
                }
                return bytes
            }
        }
    }
}
