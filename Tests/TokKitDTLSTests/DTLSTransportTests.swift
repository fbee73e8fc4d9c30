import Testing
@testable import TokKitDTLS
import TokKitICE
import TokKitICETestSupport
import TokKitSRTP

@Suite(.serialized) struct DTLSTransportTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let aRole: DTLSRole
        let profile: SRTPProfile
        var testDescription: String { "a=\(aRole) \(profile)" }
    }

    static let cases = [DTLSRole.client, .server].flatMap { r in SRTPProfile.allCases.map { Case(aRole: r, profile: $0) } }

    @Test(arguments: cases)
    func handshakeOverICEExportsMatchingKeys(c: Case) async throws {
        let pair = try SecurePair(aRole: c.aRole, profilesA: [c.profile], profilesB: [c.profile])
        #expect(try await pair.connectICEAndStart())
        #expect(await eventually { pair.a.state == .connected && pair.b.state == .connected },
                "a: \(pair.a.state) \(String(describing: pair.a.failure)), b: \(pair.b.state) \(String(describing: pair.b.failure))")
        #expect(pair.a.srtpProfile == c.profile && pair.b.srtpProfile == c.profile)
        let ka = try #require(pair.a.negotiatedKeys), kb = try #require(pair.b.negotiatedKeys)
        #expect(ka.local == kb.remote, "what a sends with, b receives with")
        #expect(ka.remote == kb.local)
        #expect(ka.local != ka.remote)
        #expect(ka.local.key.count == c.profile.keyLength && ka.local.salt.count == c.profile.saltLength)
        #expect(pair.a.handshakeDuration != nil)
        await pair.close()
    }

    @Test func preferredProfileIsAEADWhenBothOfferBoth() async throws {
        let pair = try SecurePair(aRole: .client)
        #expect(try await pair.connectICEAndStart())
        #expect(await eventually { pair.a.state == .connected && pair.b.state == .connected })
        #expect(pair.a.srtpProfile == .aeadAes128Gcm)
        await pair.close()
    }

    @Test func noCommonProfileFails() async throws {
        let pair = try SecurePair(aRole: .client, profilesA: [.aeadAes128Gcm], profilesB: [.aes128CmSha1_80])
        #expect(try await pair.connectICEAndStart())
        #expect(await eventually { pair.a.state == .failed || pair.b.state == .failed })
        #expect(pair.a.negotiatedKeys == nil && pair.b.negotiatedKeys == nil)
        await pair.close()
    }

    @Test(arguments: [DTLSRole.client, .server])
    func wrongFingerprintFailsAndNoMediaFlows(aRole: DTLSRole) async throws {
        let stranger = try DTLSCertificate()
        let pair = try SecurePair(aRole: aRole, aTrusts: stranger.fingerprint)
        #expect(try await pair.connectICEAndStart())
        #expect(await eventually { pair.a.state == .failed })
        #expect(pair.a.failure == .fingerprintMismatch)
        #expect(pair.a.negotiatedKeys == nil && pair.a.srtpProfile == nil)
        #expect(await eventually { pair.b.state == .failed }, "the alert fails the peer too: \(pair.b.state)")
        #expect(pair.b.negotiatedKeys == nil)
        #expect(throws: DTLSError.notConnected) { try sendMedia(makeRTP(sequence: 1), through: pair.a) }
        #expect(throws: DTLSError.notConnected) { try sendMedia(makeRTP(sequence: 1), through: pair.b) }
        // Whatever arrives on the wire is dropped, never handed up.
        try makeRTP(sequence: 2).withUnsafeBytes { try pair.ice.controlled.send($0) }
        #expect(await eventually { pair.a.statistics.droppedWithoutKeys == 1 })
        #expect(pair.aInbox.count == 0 && pair.bInbox.count == 0)
        await pair.close()
    }

    @Test func fullStackCarriesRTPAndRTCPBothWaysThenClosesCleanly() async throws {
        let pair = try SecurePair(aRole: .server)
        let agents = [pair.ice.controlling, pair.ice.controlled]
        #expect(await eventually { liveNetworkThreads(of: agents) == 2 })
        #expect(try await pair.connectICEAndStart())
        #expect(await eventually { pair.a.state == .connected && pair.b.state == .connected })

        var sentByA: [[UInt8]] = [], sentByB: [[UInt8]] = []
        for seq in UInt16(1)...100 {
            let pa = makeRTP(sequence: seq), pb = makeRTP(sequence: 60_000 &+ seq, payloadLength: 900)
            let wire = try sendMedia(pa, through: pair.a)
            #expect(wire[12..<40] != pa[12..<40], "payload encrypted on the wire")
            try sendMedia(pb, through: pair.b)
            sentByA.append(pa); sentByB.append(pb)
        }
        for _ in 0..<5 {
            try sendMedia(makeRTCP(), through: pair.a, rtcp: true)
            try sendMedia(makeRTCP(), through: pair.b, rtcp: true)
        }
        #expect(await eventually { pair.bInbox.count == 105 && pair.aInbox.count == 105 })
        #expect(pair.bInbox.rtp == sentByA && pair.aInbox.rtp == sentByB)
        #expect(pair.bInbox.rtcp == Array(repeating: makeRTCP(), count: 5))
        #expect(pair.aInbox.rtcp.count == 5)
        #expect(pair.b.statistics.rtpReceived == 100 && pair.b.statistics.rtcpReceived == 5)

        // close_notify reaches the peer.
        pair.a.close()
        #expect(await eventually { pair.b.state == .closed })
        #expect(throws: DTLSError.notConnected) { try sendMedia(makeRTP(sequence: 500), through: pair.b) }
        await pair.close()
        #expect(await eventually { liveNetworkThreads(of: agents) == 0 },
                "threads end on close: \(processThreads().map(\.name))")
        #expect(glibWorkerCount() <= 1)
    }

    @Test func replayedAndTamperedPacketsAreDropped() async throws {
        let pair = try SecurePair(aRole: .client)
        #expect(try await pair.connectICEAndStart())
        #expect(await eventually { pair.a.state == .connected && pair.b.state == .connected })
        let wire = try sendMedia(makeRTP(sequence: 10), through: pair.a)
        #expect(await eventually { pair.bInbox.count == 1 })
        try wire.withUnsafeBytes { try pair.ice.controlling.send($0) }      // replay
        var tampered = try sendMedia(makeRTP(sequence: 11), through: pair.a)
        #expect(await eventually { pair.bInbox.count == 2 })
        tampered[30] ^= 0x40
        tampered[2] = 0; tampered[3] = 12                                    // a fresh index, forged payload
        try tampered.withUnsafeBytes { try pair.ice.controlling.send($0) }
        #expect(await eventually { pair.b.statistics.replays == 1 && pair.b.statistics.authenticationFailures == 1 })
        #expect(pair.bInbox.count == 2)
        await pair.close()
    }

    @Test func handshakeStartedBeforeICEConnectsCompletesByRetransmission() async throws {
        let pair = try SecurePair(aRole: .client)
        pair.a.start()  // the ClientHello is lost: no pair is selected yet
        pair.b.start()
        try pair.ice.start()
        #expect(await eventually(within: .seconds(15)) { pair.a.state == .connected && pair.b.state == .connected },
                "retransmission timer resends the flight: a \(pair.a.state), b \(pair.b.state)")
        await pair.close()
    }
}
