import Testing
@testable import TokKitPeer
import TokKitRTP

/// Round-trip time from reception reports (RFC 3550 §6.4.1): RTT = A − LSR − DLSR in 16.16 NTP units.
@Suite("SendTrack") struct SendTrackTests {
    static func block(ssrc: UInt32 = 7, lsr: UInt32, dlsr: UInt32) -> RTCPReportBlock {
        RTCPReportBlock(ssrc: ssrc, fractionLost: 0, cumulativeLost: 3, extendedHighestSequenceNumber: 100,
                        jitter: 480, lastSenderReport: lsr, delaySinceLastSenderReport: dlsr)
    }

    @Test func roundTripTimeIsArrivalMinusLSRMinusDLSR() {
        var track = SendTrack(kind: .audio, ssrc: 7, payloadType: 111)
        defer { track.deallocate() }
        track.rememberSenderReport(0x1000_0000)
        // Arrival 1.5 s after the SR, the peer held it 1.25 s: RTT 0.25 s.
        track.apply(Self.block(lsr: 0x1000_0000, dlsr: 0x1_4000), arrival: 0x1000_0000 + 0x1_8000)
        #expect(track.roundTripTime == .milliseconds(250))
        #expect(track.remoteLost == 3 && track.remoteJitter == 480 && track.receptionReports == 1)
    }

    @Test func unknownOrMissingLSRGivesNoRoundTripTime() {
        var track = SendTrack(kind: .video, ssrc: 7, payloadType: 96)
        defer { track.deallocate() }
        track.apply(Self.block(lsr: 0, dlsr: 0), arrival: 0x2000_0000)
        #expect(track.roundTripTime == nil)
        track.rememberSenderReport(0x1000_0000)
        track.apply(Self.block(lsr: 0x0FFF_0000, dlsr: 0), arrival: 0x2000_0000)  // an SR we never sent
        #expect(track.roundTripTime == nil)
        track.apply(Self.block(lsr: 0x1000_0000, dlsr: 0x2000_0000), arrival: 0x1000_0001)  // would be negative
        #expect(track.roundTripTime == nil)
        #expect(track.receptionReports == 3)
    }

    @Test func remembersTheLastFourSenderReports() {
        var track = SendTrack(kind: .audio, ssrc: 7, payloadType: 111)
        defer { track.deallocate() }
        for lsr: UInt32 in [0x100, 0x200, 0x300, 0x400, 0x500] { track.rememberSenderReport(lsr) }
        #expect(track.senderReports == 5)
        track.apply(Self.block(lsr: 0x100, dlsr: 0), arrival: 0x1000)  // evicted
        #expect(track.roundTripTime == nil)
        track.apply(Self.block(lsr: 0x200, dlsr: 0), arrival: 0x1200)
        #expect(track.roundTripTime == RTCPClock.duration(compact: 0x1000))
    }
}
