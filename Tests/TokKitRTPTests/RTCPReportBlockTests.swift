import Testing
import TokKitRTP

@Suite struct RTCPReportBlockTests {
    @Test func cumulativeLostIsSigned24Bit() throws {
        // RR with one block whose cumulative lost field is 0xFFFFFE (-2, duplicates outnumber losses).
        let rr = try RTCPReceiverReport(parsing: hex("""
            81 c9 00 07 00 00 00 01  00 00 00 02 10 ff ff fe 00 01 00 05 00 00 00 20 00 00 00 00 00 00 00 00
            """))
        #expect(rr.reports[0].fractionLost == 0x10)
        #expect(rr.reports[0].cumulativeLost == -2)
        #expect(rr.reports[0].extendedHighestSequenceNumber == 0x1_0005)
        #expect(rr.reports[0].jitter == 32)
    }

    @Test func cumulativeLostIsClampedWhenWritten() throws {
        let rr = RTCPReceiverReport(ssrc: 1, reports: [RTCPReportBlock(ssrc: 2, cumulativeLost: 10_000_000),
                                                       RTCPReportBlock(ssrc: 3, cumulativeLost: -10_000_000)])
        let parsed = try RTCPReceiverReport(parsing: rr.serialized())
        #expect(parsed.reports.map(\.cumulativeLost) == [0x7F_FFFF, -0x80_0000])
    }
}
