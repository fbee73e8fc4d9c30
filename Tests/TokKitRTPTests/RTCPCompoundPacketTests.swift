import Testing
import TokKitRTP

@Suite struct RTCPCompoundPacketTests {
    /// RR + SDES(CNAME) + BYE + PLI + RTPFB FMT 5 + APP, from a browser packet dump (published with pion/rtcp's tests).
    static let browserDump = hex("""
        81 c9 00 07 90 2f 9e 2e bc 5e 9a 40 00 00 00 00 00 00 46 e1 00 00 01 11 09 f3 64 32 00 02 4a 79
        81 ca 00 0c 90 2f 9e 2e 01 26 7b 39 63 30 30 65 62 39 32 2d 31 61 66 62 2d 39 64 34 39 2d 61 34 37 64
        2d 39 31 66 36 34 65 65 65 36 39 66 35 7d 00 00 00 00
        81 cb 00 01 90 2f 9e 2e
        81 ce 00 02 90 2f 9e 2e 90 2f 9e 2e
        85 cd 00 02 90 2f 9e 2e 90 2f 9e 2e
        80 cc 00 03 4b aa e1 ab 4e 41 4d 45 41 42 43 44
        """)

    /// Hand-built SR + SDES compound, as a Chromium video sender emits every second (CNAME from the captured offer).
    static let chromiumSenderReport = hex("""
        80 c8 00 06 99 a8 7d 2d e9 1f 3c a5 8f 5c 28 f5 00 0b b8 00 00 00 01 2c 00 02 bf 20
        81 ca 00 06 99 a8 7d 2d 01 10 76 48 4a 32 49 52 6f 6b 48 7a 74 33 58 69 59 72 00 00
        """)

    @Test func decodesTheBrowserDump() throws {
        let compound = try RTCPCompoundPacket(parsing: Self.browserDump)
        #expect(!compound.isReducedSize)
        #expect(compound.packets.count == 6)
        #expect(compound.packets[0] == .receiverReport(RTCPReceiverReport(ssrc: 0x902F_9E2E, reports: [
            RTCPReportBlock(ssrc: 0xBC5E_9A40, fractionLost: 0, cumulativeLost: 0,
                            extendedHighestSequenceNumber: 0x46E1, jitter: 273, lastSenderReport: 0x09F3_6432,
                            delaySinceLastSenderReport: 150_137),
        ])))
        guard case let .sourceDescription(sdes) = compound.packets[1] else {
            Issue.record("expected SDES, got \(compound.packets[1])")
            return
        }
        #expect(sdes.chunks.count == 1)
        #expect(sdes.chunks[0].source == 0x902F_9E2E)
        #expect(sdes.chunks[0].cname == "{9c00eb92-1afb-9d49-a47d-91f64eee69f5}")
        #expect(compound.packets[2] == .goodbye(RTCPGoodbye(sources: [0x902F_9E2E])))
        #expect(compound.packets[3] == .pictureLossIndication(
            RTCPPictureLossIndication(senderSSRC: 0x902F_9E2E, mediaSSRC: 0x902F_9E2E)))
        #expect(compound.packets[4] == .raw(RTCPRawPacket(
            packetType: 205, count: 5, body: hex("90 2f 9e 2e 90 2f 9e 2e"))))
        #expect(compound.packets[5] == .raw(RTCPRawPacket(packetType: 204, count: 0, body: hex("4b aa e1 ab 4e 41 4d 45 41 42 43 44"))))
        #expect(try compound.serialized() == Self.browserDump)
    }

    @Test func decodesChromiumSenderReportWithCNAME() throws {
        let compound = try RTCPCompoundPacket(parsing: Self.chromiumSenderReport)
        guard case let .senderReport(sr) = compound.packets.first, case let .sourceDescription(sdes) = compound.packets.last
        else {
            Issue.record("expected SR + SDES, got \(compound.packets)")
            return
        }
        #expect(sr.ssrc == 0x99A8_7D2D)
        #expect(sr.ntpTimestamp.seconds == 0xE91F_3CA5)
        #expect(sr.ntpTimestamp.fraction == 0x8F5C_28F5)
        #expect(sr.ntpTimestamp.compact == 0x3CA5_8F5C)
        #expect(sr.rtpTimestamp == 768_000)
        #expect(sr.packetCount == 300)
        #expect(sr.octetCount == 180_000)
        #expect(sr.reports.isEmpty)
        #expect(sdes.chunks == [RTCPSourceDescription.Chunk(source: 0x99A8_7D2D, cname: "vHJ2IRokHzt3XiYr")])
        #expect(try compound.serialized() == Self.chromiumSenderReport)
    }

    @Test func toleratesReducedSizeFeedback() throws {
        let pli = try RTCPPictureLossIndication(senderSSRC: 1, mediaSSRC: 2).serialized()
        let compound = try RTCPCompoundPacket(parsing: pli)
        #expect(compound.isReducedSize)
        #expect(compound.packets == [.pictureLossIndication(RTCPPictureLossIndication(senderSSRC: 1, mediaSSRC: 2))])
    }

    @Test func unknownApplicationFeedbackStaysRaw() throws {
        let afb = hex("8f ce 00 03 00 00 00 01 00 00 00 00 41 42 43 44")
        let compound = try RTCPCompoundPacket(parsing: afb)
        #expect(compound.packets == [.raw(RTCPRawPacket(packetType: 206, count: 15, body: Array(afb[4...])))])
    }

    @Test func rejectsMalformedCompounds() {
        func error(_ bytes: [UInt8]) -> RTPError? {
            do throws(RTPError) {
                _ = try RTCPCompoundPacket(parsing: bytes)
                return nil
            } catch { return error }
        }
        #expect(error([]) == .truncated(.rtcpHeader, needed: 4, available: 0))
        #expect(error(hex("81 c9 00 64")) == .invalidRTCPLength(declared: 404, available: 4))
        #expect(error(hex("41 c9 00 00")) == .unsupportedVersion(1))
        // A valid RR followed by three stray bytes.
        #expect(error(hex("80 c9 00 01 00 00 00 01 80 c9 00")) == .truncated(.rtcpHeader, needed: 4, available: 3))
        // RR claiming one report block with none present.
        #expect(error(hex("81 c9 00 01 00 00 00 01")) == .countMismatch(.reportBlock, count: 1, length: 4))
        // Padding bit with a padding count larger than the packet.
        #expect(error(hex("a0 c9 00 01 00 00 00 09")) == .invalidPadding(count: 9, available: 4))
        // SDES whose item runs past the end, and one without the terminating null octet.
        #expect(error(hex("81 ca 00 02 00 00 00 01 01 05 61 62")) == .truncated(.sdesItem, needed: 11, available: 8))
        #expect(error(hex("81 ca 00 02 00 00 00 01 01 02 61 62")) == .truncated(.sdesItem, needed: 9, available: 8))
        // SDES with 31 chunks announced in 8 bytes.
        #expect(error(hex("9f ca 00 02 00 00 00 01 00 00 00 00")) == .countMismatch(.sdesChunk, count: 31, length: 8))
        // Feedback without its media SSRC; NACK and FIR with a partial FCI.
        #expect(error(hex("81 ce 00 01 00 00 00 01")) == .truncated(.feedback, needed: 8, available: 4))
        #expect(error(hex("81 cd 00 02 00 00 00 01 00 00 00 02")) == .countMismatch(.feedbackControlInformation, count: 0, length: 0))
        #expect(error(hex("84 ce 00 03 00 00 00 01 00 00 00 02 00 00 00 03"))
            == .countMismatch(.feedbackControlInformation, count: 0, length: 4))
        // REMB announcing more SSRCs than it carries.
        #expect(error(hex("8f ce 00 04 00 00 00 01 00 00 00 00 52 45 4d 42 02 00 00 01"))
            == .countMismatch(.feedbackControlInformation, count: 2, length: 8))
    }

    @Test func walkingVisitsWhatDecodingDecodesAndABadChainVisitsNothing() throws {
        var walked: [(header: RTCPHeader, packet: RTCPPacket)] = []
        try Self.browserDump.withUnsafeBytes { raw in
            try RTCPCompoundPacket.forEachPacket(in: raw) { (header, bytes) throws(RTPError) in
                #expect(bytes.count == header.packetLength)
                walked.append((header, try RTCPPacket(parsing: bytes)))
            }
        }
        #expect(walked.map(\.packet) == (try RTCPCompoundPacket(parsing: Self.browserDump)).packets)
        #expect(walked.map(\.header.packetType) == [201, 202, 203, 206, 205, 204])

        // The chain is checked whole before the first visit: an RR followed by a truncated header, a packet
        // claiming more bytes than remain, 257 packets.
        let many = Array(repeating: hex("80 c9 00 01 00 00 00 01"), count: 257).flatMap { $0 }
        for bad in [hex("80 c9 00 01 00 00 00 01 80 c9 00"), hex("80 c9 00 01 00 00 00 01 81 c9 00 07 00 00"), many] {
            let (visits, failed) = Self.visits(bad)
            #expect(failed && visits == 0)
        }
    }

    /// How many packets ``RTCPCompoundPacket/forEachPacket(in:_:)`` visits in `bytes`, and whether it threw.
    static func visits(_ bytes: [UInt8]) -> (count: Int, threw: Bool) {
        var count = 0
        let threw = bytes.withUnsafeBytes { raw in
            (try? RTCPCompoundPacket.forEachPacket(in: raw) { _, _ in count += 1 }) == nil
        }
        return (count, threw)
    }

    @Test func paddedPacketParsesAndCapIsEnforced() throws {
        // RR with RFC 3550 padding (4 bytes) on the last packet.
        let padded = hex("a0 c9 00 02 00 00 00 07 00 00 00 04")
        #expect(try RTCPCompoundPacket(parsing: padded).packets == [.receiverReport(RTCPReceiverReport(ssrc: 7))])
        // 257 empty RRs: one more than the cap.
        let many = Array(repeating: hex("80 c9 00 01 00 00 00 01"), count: 257).flatMap { $0 }
        #expect(throws: RTPError.countMismatch(.rtcpPacket, count: 257, length: many.count)) {
            try RTCPCompoundPacket(parsing: many)
        }
    }

    @Test func roundTripsEveryPacketType() throws {
        let compound = RTCPCompoundPacket(packets: [
            .senderReport(RTCPSenderReport(
                ssrc: 1, ntpTimestamp: NTPTimestamp(rawValue: 0x0102_0304_0506_0708), rtpTimestamp: 9,
                packetCount: 10, octetCount: 11,
                reports: [RTCPReportBlock(ssrc: 2, fractionLost: 3, cumulativeLost: -5,
                                          extendedHighestSequenceNumber: 0x1_0005, jitter: 7, lastSenderReport: 8,
                                          delaySinceLastSenderReport: 9)])),
            .sourceDescription(RTCPSourceDescription(chunks: [
                .init(source: 1, cname: "abc"),
                .init(source: 2, items: []),
                .init(source: 3, items: [.init(type: 2, text: "name"), .init(type: 6, text: "TokKit")]),
            ])),
            .genericNACK(RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: [1, 3, 40])),
            .fullIntraRequest(RTCPFullIntraRequest(senderSSRC: 1, entries: [.init(ssrc: 2, sequenceNumber: 200)])),
            .receiverEstimatedMaximumBitrate(RTCPReceiverEstimatedMaximumBitrate(senderSSRC: 1, bitrate: 1_000_000,
                                                                                   ssrcs: [2, 3])),
            .goodbye(RTCPGoodbye(sources: [1, 2], reason: "done")),
            .raw(RTCPRawPacket(packetType: 204, count: 1, body: [1, 2, 3, 4, 5])),
        ])
        let bytes = try compound.serialized()
        #expect(bytes.count == compound.serializedLength)
        #expect(bytes.count % 4 == 0)
        let parsed = try RTCPCompoundPacket(parsing: bytes)
        #expect(parsed == compound)
    }
}
