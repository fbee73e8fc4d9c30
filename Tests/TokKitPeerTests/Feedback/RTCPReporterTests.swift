import Testing
@testable import TokKitPeer
import TokKitRTP

/// Sender and receiver reports (RFC 3550 §6.4) on a manual clock: what is written, and the round-trip time
/// A − LSR − DLSR from what comes back.
@Suite struct RTCPReporterTests {
    static let time = PeerClock.ManualTime()
    static let clock = PeerClock.manual(time)

    static func block(ssrc: UInt32 = 0xA, lsr: UInt32, dlsr: UInt32) -> RTCPReportBlock {
        RTCPReportBlock(ssrc: ssrc, fractionLost: 64, cumulativeLost: 3, extendedHighestSequenceNumber: 100,
                        jitter: 480, lastSenderReport: lsr, delaySinceLastSenderReport: dlsr)
    }

    static func sentReport(_ out: RecordingOutput) -> RTCPSenderReport? {
        guard case .senderReport(let sr)? = out.rtcp.last?.first else { return nil }
        return sr
    }

    @Test func roundTripTimeIsArrivalMinusLSRMinusDLSR() throws {
        var unit = RTCPReporter(clock: Self.clock, reporterSSRC: 1)
        unit.addSender(.audio, ssrc: 0xA)
        unit.updateSender(.audio, packets: 50, octets: 4000, rtpTimestamp: 9600)
        var out = RecordingOutput()
        unit.poll(now: ms(0), output: &out)
        let sr = try #require(Self.sentReport(out))
        #expect(sr.ssrc == 0xA && sr.packetCount == 50 && sr.octetCount == 4000 && sr.rtpTimestamp == 9600)
        #expect(sr.ntpTimestamp == Self.clock.ntp(at: ms(0)))
        // The peer held our SR 1.25 s and its report arrives 1.5 s after we sent it: 250 ms round trip.
        let rr = RTCPReceiverReport(ssrc: 2, reports: [Self.block(lsr: sr.ntpTimestamp.compact, dlsr: 0x1_4000)])
        unit.received(.receiverReport(rr), now: ms(1500), output: &out)
        let rtt = try #require(unit[sender: .audio]?.roundTripTime)
        #expect(rtt > .microseconds(249_900) && rtt < .microseconds(250_100), "\(rtt)")
        #expect(unit[sender: .audio]?.remoteLost == 3 && unit[sender: .audio]?.remoteFractionLost == 64)
    }

    @Test func anUnknownMissingOrNegativeLSRGivesNoRoundTripTime() {
        var unit = RTCPReporter(clock: Self.clock, reporterSSRC: 1)
        unit.addSender(.audio, ssrc: 0xA)
        var out = RecordingOutput()
        unit.poll(now: ms(0), output: &out)
        let lsr = Self.clock.ntp(at: ms(0)).compact
        for block in [Self.block(lsr: 0, dlsr: 0), Self.block(lsr: lsr &- 0x100, dlsr: 0),
                      Self.block(lsr: lsr, dlsr: 0x2000_0000)] {
            unit.received(.receiverReport(RTCPReceiverReport(ssrc: 2, reports: [block])), now: ms(10), output: &out)
        }
        #expect(unit[sender: .audio]?.roundTripTime == nil)
        #expect(unit[sender: .audio]?.receptionReports == 3)
    }

    @Test func remembersTheLastFourSenderReports() throws {
        var unit = RTCPReporter(clock: Self.clock, reporterSSRC: 1)
        unit.addSender(.video, ssrc: 0xB)
        var out = RecordingOutput()
        for second: UInt64 in 0 ..< 5 { unit.poll(now: ms(second * 1000), output: &out) }
        #expect(unit[sender: .video]?.senderReports == 5)
        let first = Self.clock.ntp(at: ms(0)).compact, second = Self.clock.ntp(at: ms(1000)).compact
        unit.received(.receiverReport(RTCPReceiverReport(ssrc: 2, reports: [Self.block(ssrc: 0xB, lsr: first, dlsr: 0)])),
                      now: ms(5000), output: &out)
        #expect(unit[sender: .video]?.roundTripTime == nil)  // evicted
        unit.received(.receiverReport(RTCPReceiverReport(ssrc: 2, reports: [Self.block(ssrc: 0xB, lsr: second, dlsr: 0)])),
                      now: ms(5000), output: &out)
        let rtt = try #require(unit[sender: .video]?.roundTripTime)
        #expect(rtt > .milliseconds(3999) && rtt < .milliseconds(4001), "\(rtt)")
    }

    @Test func receiverReportsCarryLossAndTheDelaySinceThePeersSenderReport() throws {
        var unit = RTCPReporter(clock: Self.clock, reporterSSRC: 1)
        unit.addReceiver(.video, ssrc: nil)
        var out = RecordingOutput()
        unit.poll(now: ms(0), output: &out)  // nothing received yet: an empty RR
        #expect(out.rtcp.last == [.receiverReport(RTCPReceiverReport(ssrc: 1))])
        for s: UInt16 in 1 ... 20 where s != 7 {
            unit.received(ReceivedRTP(ssrc: 0xF, sequenceNumber: s, timestamp: UInt32(s) * 3000, payloadLength: 100),
                          section: .video, now: ms(UInt64(s) * 33), output: &out)
        }
        let peerSR = RTCPSenderReport(ssrc: 0xF, ntpTimestamp: NTPTimestamp(rawValue: 0x1234_5678_0000_0000),
                                      rtpTimestamp: 0, packetCount: 20, octetCount: 2000)
        unit.received(.senderReport(peerSR), now: ms(1000), output: &out)
        unit.poll(now: ms(1500), output: &out)
        guard case .receiverReport(let rr)? = out.rtcp.last?.first, let block = rr.reports.first else {
            Issue.record("no report block: \(out.rtcp)")
            return
        }
        #expect(block.ssrc == 0xF && block.cumulativeLost == 1)
        #expect(block.lastSenderReport == peerSR.ntpTimestamp.compact)
        #expect(block.delaySinceLastSenderReport == NTPTimestamp.compact(.milliseconds(500)))
        #expect(unit[receiver: .video]?.packets == 19 && unit[receiver: .video]?.payloadBytes == 1900)
        #expect(unit[receiver: .video]?.senderReports == 1)
    }
}
