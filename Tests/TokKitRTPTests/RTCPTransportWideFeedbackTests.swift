import Testing
import TokKitRTP

@Suite struct RTCPTransportWideFeedbackTests {
    /// A transport-cc message as libwebrtc sends it (Wireshark-dissected capture): base 1, 9 packets all received
    /// with small deltas, one run-length chunk (0x2009), one byte of RFC 3550 padding.
    static let runLengthGolden = hex("""
        af cd 00 07 00 00 00 01 dd 58 6e b6 00 01 00 09 5e 91 10 00 20 09 1c 0c 2c 38 00 04 00 08 18 01
        """)
    static let runLengthDeltas: [UInt8] = [0x1C, 0x0C, 0x2C, 0x38, 0x00, 0x04, 0x00, 0x08, 0x18]

    /// A browser's message (pion/rtcp's test vector): a two-bit status vector (5 small, 1 lost, 1 large delta)
    /// then a run-length chunk of 48 "not received" of which only 2 count (status count 9).
    static let vectorGolden = hex("""
        af cd 00 07 9b 74 f6 1f 93 71 dc bc 85 3c 00 09 63 f9 16 b3 d5 52 00 30 9b aa 6a aa 7b 01 09 01
        """)

    static func parse(_ bytes: [UInt8]) -> Result<RTCPTransportWideFeedback, RTPError> {
        bytes.withUnsafeBytes { raw in
            do throws(RTPError) {
                return .success(try RTCPTransportWideFeedback(parsing: raw))
            } catch { return .failure(error) }
        }
    }

    @Test func parsesAndWritesTheRunLengthGolden() throws {
        let feedback = try RTCPTransportWideFeedback(parsing: Self.runLengthGolden)
        #expect(feedback.senderSSRC == 1 && feedback.mediaSSRC == 0xDD58_6EB6)
        #expect(feedback.baseSequenceNumber == 1 && feedback.referenceTime == 0x5E_9110)
        #expect(feedback.feedbackPacketCount == 0)
        #expect(feedback.statuses == Self.runLengthDeltas.map { .receivedSmallDelta($0) })
        #expect(try feedback.serialized() == Self.runLengthGolden)
        #expect(feedback.serializedLength == 32)
        // Arrival times: reference time × 64 ms, then the running sum of 250 µs deltas.
        let base = Int64(0x5E_9110) * 64_000
        #expect(feedback.arrivals.first?.microseconds == base + 7_000)
        #expect(feedback.arrivals.last?.microseconds == base + 250 * Self.runLengthDeltas.reduce(0) { $0 + Int64($1) })
        // Decoded inside a compound packet too.
        let compound = try RTCPCompoundPacket(parsing: Self.runLengthGolden)
        #expect(compound.packets == [.transportWideFeedback(feedback)])
    }

    @Test func parsesABrowsersVectorChunkWithALargeDelta() throws {
        let feedback = try RTCPTransportWideFeedback(parsing: Self.vectorGolden)
        #expect(feedback.senderSSRC == 0x9B74_F61F && feedback.mediaSSRC == 0x9371_DCBC)
        #expect(feedback.baseSequenceNumber == 34108 && feedback.referenceTime == 6_551_830)
        #expect(feedback.feedbackPacketCount == 179)
        #expect(feedback.statuses == [
            .receivedSmallDelta(0x9B), .receivedSmallDelta(0xAA), .receivedSmallDelta(0x6A),
            .receivedSmallDelta(0xAA), .receivedSmallDelta(0x7B), .notReceived, .receivedLargeDelta(0x0109),
            .notReceived, .notReceived,
        ])
        #expect(feedback.arrivals.map(\.sequenceNumber) == Array(34108 ... 34116))
        // TokKit writes the same vector chunk, and a run of exactly the 2 remaining "not received".
        var expected = Self.vectorGolden
        expected[22] = 0x00
        expected[23] = 0x02
        #expect(try feedback.serialized() == expected)
        #expect(try RTCPTransportWideFeedback(parsing: expected) == feedback)
    }

    @Test func writesOneBitVectorsAndTwoBitVectorsAsLibwebrtcDoes() throws {
        // 14 mixed received/lost, no large delta: one one-bit vector chunk.
        let mixed: [RTCPTransportWideFeedback.PacketStatus] = (0 ..< 14).map {
            $0 % 3 == 0 ? .notReceived : .receivedSmallDelta(UInt8($0))
        }
        let oneBit = RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 65530,
                                               referenceTime: 0xFF_FFFF, feedbackPacketCount: 255, statuses: mixed)
        let bytes = try oneBit.serialized()
        #expect(Array(bytes[20 ..< 22]) == [0x9B, 0x6D])  // 1, 0, then 0 1 1 0 1 1 0 1 1 0 1 1 0 1
        #expect(bytes.count == oneBit.serializedLength && bytes.count % 4 == 0)
        #expect(try RTCPTransportWideFeedback(parsing: bytes) == oneBit)
        #expect(oneBit.arrivals.last?.sequenceNumber == 65530 &+ 13)

        // A large delta among mixed statuses: two-bit vectors of 7.
        var withLarge = mixed
        withLarge[1] = .receivedLargeDelta(-4)
        var twoBit = oneBit
        twoBit.statuses = withLarge
        let twoBitBytes = try twoBit.serialized()
        #expect(twoBitBytes[20] & 0xC0 == 0xC0 && twoBitBytes[22] & 0xC0 == 0xC0)
        #expect(try RTCPTransportWideFeedback(parsing: twoBitBytes) == twoBit)

        // No statuses at all is a valid, 20-byte message.
        var empty = oneBit
        empty.statuses = []
        #expect(try empty.serialized().count == 20)
        #expect(try RTCPTransportWideFeedback(parsing: empty.serialized()) == empty)
    }

    @Test func roundTripsRandomStatusLists() throws {
        var random = SeededGenerator(seed: 0x7CC)
        for round in 0 ..< 300 {
            let count = round == 0 ? 65535 : Int.random(in: 0 ... 600, using: &random)
            let runny = Bool.random(using: &random)
            var statuses: [RTCPTransportWideFeedback.PacketStatus] = []
            var current = RTCPTransportWideFeedback.PacketStatus.notReceived
            for _ in 0 ..< count {
                if !runny || Int.random(in: 0 ..< 40, using: &random) == 0 {
                    switch Int.random(in: 0 ..< 10, using: &random) {
                    case 0 ..< 3: current = .notReceived
                    case 3 ..< 9: current = .receivedSmallDelta(UInt8.random(in: 0 ... 255, using: &random))
                    default: current = .receivedLargeDelta(Int16.random(in: .min ... .max, using: &random))
                    }
                }
                statuses.append(current)
            }
            let feedback = RTCPTransportWideFeedback(
                senderSSRC: UInt32.random(in: 0 ... .max, using: &random), mediaSSRC: 7,
                baseSequenceNumber: UInt16.random(in: 0 ... .max, using: &random),
                referenceTime: UInt32.random(in: 0 ... 0xFF_FFFF, using: &random), feedbackPacketCount: UInt8(round % 256),
                statuses: statuses)
            let bytes = try feedback.serialized()
            #expect(bytes.count == feedback.serializedLength, "round \(round)")
            #expect(try RTCPTransportWideFeedback(parsing: bytes) == feedback, "round \(round)")
        }
    }

    @Test func parsingIntoAKeptValueMatchesAFreshParseMessageAfterMessage() throws {
        var random = SeededGenerator(seed: 0x5CA7)
        var kept = RTCPTransportWideFeedback(senderSSRC: 0, mediaSSRC: 0, baseSequenceNumber: 0, referenceTime: 0,
                                             feedbackPacketCount: 0, statuses: [])
        // Long, short, empty and long again: a shorter message leaves nothing of a longer one behind.
        for count in [400, 3, 0, 120, 1, 600] {
            let statuses: [RTCPTransportWideFeedback.PacketStatus] = (0 ..< count).map { _ in
                switch Int.random(in: 0 ..< 10, using: &random) {
                case 0 ..< 3: .notReceived
                case 3 ..< 9: .receivedSmallDelta(UInt8.random(in: 0 ... 255, using: &random))
                default: .receivedLargeDelta(Int16.random(in: .min ... .max, using: &random))
                }
            }
            let message = RTCPTransportWideFeedback(
                senderSSRC: UInt32(count), mediaSSRC: 9, baseSequenceNumber: UInt16.random(in: 0 ... .max, using: &random),
                referenceTime: 0x12_3456, feedbackPacketCount: UInt8(count % 256), statuses: statuses)
            let bytes = try message.serialized()
            try bytes.withUnsafeBytes { raw in try kept.parse(raw) }
            #expect(kept == message, "\(count) statuses")
        }
        // A malformed message (a delta cut off) throws the same typed error as a fresh parse.
        var bytes = try RTCPTransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 0, referenceTime: 0,
                                                  feedbackPacketCount: 0,
                                                  statuses: [.receivedLargeDelta(-300)]).serialized()
        bytes[3] -= 1  // one word shorter: the large delta is no longer there
        bytes.removeLast(4)
        func error(_ parse: (UnsafeRawBufferPointer) throws(RTPError) -> Void) -> RTPError? {
            bytes.withUnsafeBytes { raw in
                do throws(RTPError) { try parse(raw) } catch { return error }
                return nil
            }
        }
        let fresh = error { raw throws(RTPError) in _ = try RTCPTransportWideFeedback(parsing: raw) }
        #expect(fresh != nil)
        #expect(error { raw throws(RTPError) in try kept.parse(raw) } == fresh)
    }

    @Test func rejectsMalformedMessagesWithTypedErrors() {
        // Too short for the fixed FCI fields.
        #expect(Self.parse(hex("8f cd 00 03 00 00 00 01 00 00 00 02 00 01 00 09"))
            == .failure(.truncated(.feedbackControlInformation, needed: 8, available: 4)))
        // A status count of 9 and no chunk.
        #expect(Self.parse(hex("8f cd 00 04 00 00 00 01 00 00 00 02 00 01 00 09 00 00 01 00"))
            == .failure(.truncated(.packetStatusChunk, needed: 10, available: 8)))
        // The reserved symbol 3 in a run-length chunk.
        #expect(Self.parse(hex("8f cd 00 05 00 00 00 01 00 00 00 02 00 01 00 02 00 00 01 00 60 02 00 00"))
            == .failure(.invalidField(.packetStatusChunk, field: "packet status symbol", value: 3)))
        // Two received packets with large deltas but only 3 delta bytes.
        #expect(Self.parse(hex("8f cd 00 05 00 00 00 01 00 00 00 02 00 01 00 02 00 00 01 00 40 02 00 01"))
            == .failure(.truncated(.receiveDelta, needed: 14, available: 12)))
        // Not transport-cc: a generic NACK's format.
        #expect(Self.parse(hex("81 cd 00 03 00 00 00 01 00 00 00 02 00 01 00 00"))
            == .failure(.unexpectedPacketType(expected: 15, actual: 1)))
    }

    @Test func neverTrapsOnRandomBodies() {
        var random = SeededGenerator(seed: 15)
        var parsed = 0
        for _ in 0 ..< 5000 {
            let words = Int.random(in: 5 ... 12, using: &random)
            var bytes = [0x8F, 0xCD, 0x00, UInt8(words - 1)]
            for _ in 0 ..< (words - 1) * 4 { bytes.append(UInt8.random(in: 0 ... 255, using: &random)) }
            // Keep the status count small enough that some messages parse.
            bytes[14] = 0
            bytes[15] = UInt8.random(in: 0 ... 40, using: &random)
            if case .success = Self.parse(bytes) { parsed += 1 }
        }
        #expect(parsed > 0)
    }

    @Test func theBuilderRefusesWhatDoesNotFitAndWritesNothingForIt() throws {
        var out = [UInt8](repeating: 0xEE, count: 24)
        var scratch = [UInt8](repeating: 0, count: 16)
        let (accepted, length) = try out.withUnsafeMutableBytes { buffer in
            try scratch.withUnsafeMutableBytes { deltas in
                var builder = try RTCPTransportWideFeedbackBuilder(
                    into: buffer, deltaScratch: deltas, senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 100,
                    referenceTime: 5, feedbackPacketCount: 9)
                var accepted = 0
                for d in [10, 20, 30] as [UInt8] where builder.add(.receivedSmallDelta(d)) { accepted += 1 }
                #expect(builder.statusCount == 2 && builder.length == 24)
                return (accepted, try builder.finish())
            }
        }
        #expect(accepted == 2 && length == 24)
        let feedback = try RTCPTransportWideFeedback(parsing: out)
        #expect(feedback.statuses == [.receivedSmallDelta(10), .receivedSmallDelta(20)])
        #expect(feedback.baseSequenceNumber == 100 && feedback.referenceTime == 5 && feedback.feedbackPacketCount == 9)

        var tiny = [UInt8](repeating: 0, count: 19)
        #expect(throws: RTPError.bufferTooSmall(needed: 20, available: 19)) {
            try tiny.withUnsafeMutableBytes { buffer in
                try scratch.withUnsafeMutableBytes { deltas in
                    _ = try RTCPTransportWideFeedbackBuilder(
                        into: buffer, deltaScratch: deltas, senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 0,
                        referenceTime: 0, feedbackPacketCount: 0)
                }
            }
        }
    }
}
