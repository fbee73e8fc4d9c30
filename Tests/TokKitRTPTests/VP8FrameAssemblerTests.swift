import Testing
import TokKitRTP

@Suite struct VP8FrameAssemblerTests {
    /// What an assembler produced: frames (copied) by timestamp, and key frame requests.
    struct Output {
        var frames: [(timestamp: UInt32, bytes: [UInt8], key: Bool)] = []
        var keyFrameRequests = 0
    }

    static func feed(_ assembler: VP8FrameAssembler, _ packets: [VP8TestPacket], into output: inout Output) throws {
        for p in packets {
            try p.payload.withUnsafeBytes { payload in
                _ = try assembler.insert(sequenceNumber: p.sequenceNumber, timestamp: p.timestamp, marker: p.marker,
                                         payload: payload)
            }
            drain(assembler, into: &output)
        }
    }

    static func drain(_ assembler: VP8FrameAssembler, into output: inout Output) {
        for _ in 0..<10_000 {
            switch assembler.next() {
            case .frame(let f)?: output.frames.append((f.timestamp, Array(f.bytes), f.isKeyFrame))
            case .keyFrameNeeded?: output.keyFrameRequests += 1
            case nil: return
            }
        }
        Issue.record("next() did not run dry")
    }

    /// Random frames, a key frame every `gop`, sizes from tiny to several packets.
    static func frames(_ count: Int, gop: Int, seed: UInt64) -> [[UInt8]] {
        var rng = SeededGenerator(seed: seed)
        return (0..<count).map { i in
            let size = [3, 4, 10, 500, 1184, 1185, 3000, 9000][Int.random(in: 0..<8, using: &rng)]
            return vp8Frame(size: i % gop == 0 ? max(size, 10) : size, key: i % gop == 0, using: &rng)
        }
    }

    @Test func inOrderFramesComeOutIdenticalAcrossTheSequenceWrap() throws {
        let frames = Self.frames(60, gop: 30, seed: 1)
        let packets = packetize(frames, with: try VP8Packetizer(), firstSequence: 65_500)
        let assembler = try VP8FrameAssembler()
        var output = Output()
        try Self.feed(assembler, packets, into: &output)
        #expect(output.frames.count == frames.count)
        let same47 = output.frames.map(\.bytes) == frames
        #expect(same47, "frames differ")
        #expect(output.frames.first?.key == true && output.keyFrameRequests == 0)
        #expect(assembler.counters.framesAssembled == 60 && assembler.counters.framesLost == 0)
    }

    @Test(arguments: [UInt64(2), 3, 4, 5])
    func shuffledAndDuplicatedPacketsStillGiveEveryFrame(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let frames = Self.frames(80, gop: 20, seed: seed)
        var packets = packetize(frames, with: try VP8Packetizer(), firstSequence: UInt16.random(in: 0...65535,
                                                                                               using: &rng))
        // Reorder within windows of 5 packets (at most 4 frames, less than the 200 ms wait) and duplicate 10% of
        // them (a duplicate may come much later).
        for start in stride(from: 0, to: packets.count, by: 5) {
            packets[start..<min(start + 5, packets.count)].shuffle(using: &rng)
        }
        let duplicates = packets.count / 10
        for _ in 0..<duplicates {
            let original = Int.random(in: 0..<packets.count, using: &rng)
            packets.insert(packets[original], at: Int.random(in: original + 1 ... packets.count, using: &rng))
        }
        let assembler = try VP8FrameAssembler()
        var output = Output()
        try Self.feed(assembler, packets, into: &output)
        // Every frame comes out intact, in order, except those still waiting for a reordered packet when the next
        // key frame is already complete: they are skipped, as libwebrtc would (the key frame does not need them).
        // Reordering spans at most 4 frames.
        let timestamps = frames.indices.map { 1000 + UInt32($0) * 3000 }
        let delivered = output.frames.map(\.timestamp)
        #expect(delivered == delivered.sorted())
        for (i, ts) in timestamps.enumerated() {
            if let frame = output.frames.first(where: { $0.timestamp == ts }) {
                let same = frame.bytes == frames[i]
                #expect(same, "frame \(i) corrupt")
            } else {
                #expect(i % 20 >= 16, "frame \(i) missing, \(assembler.counters)")
            }
        }
        #expect((assembler.counters.framesLost > 0) == (output.frames.count < frames.count))
        // A delta frame's first packet overtaking the first key frame's may cost one early request.
        #expect(output.keyFrameRequests <= 1)
        let redundant = assembler.counters.packetsDuplicate + assembler.counters.packetsLate
        #expect(redundant >= duplicates)
    }

    @Test(arguments: [UInt64(10), 11, 12, 13, 14, 15])
    func lostPacketsGiveALossSignalAndNeverACorruptFrame(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let frames = Self.frames(150, gop: 15, seed: seed)
        var packets = packetize(frames, with: try VP8Packetizer(), firstSequence: 65_000)
        var lostTimestamps = Set<UInt32>()
        for _ in 0..<6 {
            let index = Int.random(in: 0..<packets.count, using: &rng)
            lostTimestamps.insert(packets[index].timestamp)
            packets.remove(at: index)
        }
        for start in stride(from: 0, to: packets.count, by: 4) {
            packets[start..<min(start + 4, packets.count)].shuffle(using: &rng)
        }
        let assembler = try VP8FrameAssembler()
        var output = Output()
        try Self.feed(assembler, packets, into: &output)

        let original = Dictionary(uniqueKeysWithValues: frames.enumerated().map { (1000 + UInt32($0) * 3000, $1) })
        for frame in output.frames {
            #expect(!lostTimestamps.contains(frame.timestamp), "frame \(frame.timestamp) emitted with a packet lost")
            let same99 = frame.bytes == original[frame.timestamp]
            #expect(same99, "frame \(frame.timestamp) corrupt")
        }
        #expect(output.keyFrameRequests >= 1)
        #expect(assembler.counters.framesLost >= 1)
        // Decode order is kept and every key frame not hit by a loss came out (the stream recovers).
        #expect(output.frames.map(\.timestamp) == output.frames.map(\.timestamp).sorted())
        let keyTimestamps = stride(from: 0, to: frames.count - 6, by: 15).map { 1000 + UInt32($0) * 3000 }
        for ts in keyTimestamps where !lostTimestamps.contains(ts) {
            #expect(output.frames.contains { $0.timestamp == ts }, "key frame \(ts) missing")
        }
    }

    @Test func aTinyMTUSplittingThePayloadHeaderStillAssembles() throws {
        // 2 bytes of frame per packet: the 3-byte payload header and the key frame header straddle packets.
        let frames = Self.frames(20, gop: 10, seed: 8).map { Array($0.prefix(50)) }
        let assembler = try VP8FrameAssembler()
        var output = Output()
        try Self.feed(assembler, packetize(frames, with: try VP8Packetizer(maximumPayloadSize: 6), firstSequence: 7),
                      into: &output)
        let same = output.frames.map(\.bytes) == frames
        #expect(same && output.keyFrameRequests == 0, "\(assembler.counters)")
    }

    @Test func aRetransmissionBeforeTheDeadlineCompletesTheFrame() throws {
        let frames = Self.frames(10, gop: 100, seed: 7).map { $0.count < 3000 ? $0 + [UInt8](repeating: 1, count: 3000) : $0 }
        var packets = packetize(frames, with: try VP8Packetizer(), firstSequence: 100)
        let missing = packets.remove(at: 4)  // in frame 1 or 2: later frames wait for it
        let assembler = try VP8FrameAssembler()
        var output = Output()
        try Self.feed(assembler, Array(packets[..<10]), into: &output)
        let before = output.frames.count
        try Self.feed(assembler, [missing], into: &output)
        try Self.feed(assembler, Array(packets[10...]), into: &output)
        #expect(before < frames.count)
        let same123 = output.frames.map(\.bytes) == frames
        #expect(same123, "\(output.frames.count) of \(frames.count) frames")
        #expect(output.keyFrameRequests == 0 && assembler.counters.framesLost == 0)
        // Retransmitting it again is harmless.
        try Self.feed(assembler, [missing], into: &output)
        #expect(assembler.counters.packetsLate == 1 && output.frames.count == frames.count)
    }

    @Test func streamStartingWithDeltaFramesAsksForAKeyFrame() throws {
        var rng = SeededGenerator(seed: 9)
        let frames = (0..<5).map { vp8Frame(size: 200, key: $0 == 3, using: &rng) }
        let assembler = try VP8FrameAssembler()
        var output = Output()
        try Self.feed(assembler, packetize(frames, with: try VP8Packetizer(), firstSequence: 1), into: &output)
        #expect(output.keyFrameRequests == 1)  // rate limited: frames 0-2 are within 300 ms
        #expect(output.frames.map(\.timestamp) == [10_000, 13_000])
        #expect(assembler.counters.framesAssembled == 2)
    }

    @Test func aCompleteKeyFrameEndsTheWaitAtOnce() throws {
        var rng = SeededGenerator(seed: 5)
        let frames = (0..<4).map { vp8Frame(size: 2500, key: $0 == 0 || $0 == 2, using: &rng) }
        var packets = packetize(frames, with: try VP8Packetizer(), firstSequence: 10)
        packets.removeAll { $0.timestamp == 4000 && !$0.marker }  // frame 1 loses its first packets
        let assembler = try VP8FrameAssembler()
        var output = Output()
        try Self.feed(assembler, packets, into: &output)
        #expect(output.frames.map(\.timestamp) == [1000, 7000, 10_000])
        #expect(assembler.counters.framesLost == 1 && output.keyFrameRequests == 0)
    }

    @Test func paddingOnlyPacketsBetweenFramesAreSteppedOver() throws {
        // libwebrtc probes bandwidth (once transport-cc feedback flows) with padding-only packets on the media SSRC
        // when no RTX is negotiated: they take sequence numbers between frames and carry no payload.
        var rng = SeededGenerator(seed: 11)
        let frames = (0..<6).map { vp8Frame(size: 2500, key: $0 == 0, using: &rng) }
        var packets: [VP8TestPacket] = []
        var sequence: UInt16 = 65530
        for p in packetize(frames, with: try VP8Packetizer(), firstSequence: 0) {
            packets.append(VP8TestPacket(sequenceNumber: sequence, timestamp: p.timestamp, marker: p.marker,
                                         payload: p.payload))
            sequence &+= 1
            guard p.marker else { continue }
            for _ in 0..<3 {
                packets.append(VP8TestPacket(sequenceNumber: sequence, timestamp: p.timestamp, marker: false, payload: []))
                sequence &+= 1
            }
        }
        // One padding packet arrives after the next frame's first packet.
        let late = try #require(packets.indices.first { packets[$0].payload.isEmpty && packets[$0].timestamp == 7000 })
        packets.swapAt(late, late + 3)
        let assembler = try VP8FrameAssembler()
        var output = Output()
        try Self.feed(assembler, packets, into: &output)
        let same = output.frames.map(\.bytes) == frames
        #expect(same, "\(output.frames.count) of \(frames.count) frames, \(assembler.counters)")
        #expect(output.keyFrameRequests == 0 && assembler.counters.framesLost == 0)
        #expect(assembler.counters.packetsInvalid == 0)
    }

    @Test func malformedPayloadsAreTypedErrorsAndCounted() throws {
        let assembler = try VP8FrameAssembler(.init(maximumPacketPayload: 100))
        func insert(_ bytes: [UInt8]) throws(RTPError) {
            let r = bytes.withUnsafeBytes { raw in
                Result { () throws(RTPError) in
                    _ = try assembler.insert(sequenceNumber: 1, timestamp: 0, marker: true, payload: raw)
                }
            }
            try r.get()
        }
        #expect(throws: RTPError.truncated(.vp8Frame, needed: 5, available: 4)) { try insert(hex("90 80 80 01")) }
        #expect(throws: RTPError.invalidField(.vp8PayloadHeader, field: "key frame start code", value: 0x9D012B)) {
            try insert(hex("10 10 00 00 9d 01 2b 80 02 e0 01"))
        }
        #expect(throws: RTPError.invalidField(.vp8Frame, field: "packet payload length", value: 101)) {
            try insert([0x00] + [UInt8](repeating: 0, count: 101))
        }
        #expect(assembler.counters.packetsInvalid == 3)
        #expect(assembler.next().map { _ in 1 } == nil)
        #expect(throws: RTPError.self) { try VP8FrameAssembler(.init(maximumPackets: 1)) }
    }

    @Test func aFrameLargerThanTheWindowIsLostNotTruncated() throws {
        var rng = SeededGenerator(seed: 3)
        let frames = [vp8Frame(size: 500, key: true, using: &rng), vp8Frame(size: 30_000, key: true, using: &rng),
                      vp8Frame(size: 500, key: true, using: &rng)]
        let assembler = try VP8FrameAssembler(.init(maximumPackets: 16))
        var output = Output()
        try Self.feed(assembler, packetize(frames, with: try VP8Packetizer(), firstSequence: 0), into: &output)
        #expect(output.frames.map(\.timestamp) == [1000, 7000])
        let same185 = output.frames.map(\.bytes) == [frames[0], frames[2]]
        #expect(same185, "frames differ")
        #expect(assembler.counters.framesLost >= 1)
    }

    @Test func aSequenceRestartIsFollowedAfterAWindowOfLatePackets() throws {
        var rng = SeededGenerator(seed: 4)
        let frames = (0..<40).map { vp8Frame(size: 100, key: $0 % 10 == 0, using: &rng) }
        let assembler = try VP8FrameAssembler(.init(maximumPackets: 8))
        var output = Output()
        try Self.feed(assembler, packetize(Array(frames[..<20]), with: try VP8Packetizer(), firstSequence: 30_000),
                      into: &output)
        // The sender restarts 20000 sequence numbers back: "late" until more than a window of them arrived.
        try Self.feed(assembler, packetize(Array(frames[20...]), with: try VP8Packetizer(), firstSequence: 10_000,
                                           firstTimestamp: 61_000), into: &output)
        #expect(output.frames.count > 20)
        let same201 = output.frames.suffix(10).map(\.bytes) == Array(frames.suffix(10))
        #expect(same201, "frames differ")
    }
}
