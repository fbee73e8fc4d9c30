import Testing
import TokKitProtocol

@Suite struct ValidationTests {
    @Test func signalTypeAcceptsTheAllowedAlphabetUpTo128() throws {
        try Validation.signalType("")
        try Validation.signalType("chat-Room_1~")
        try Validation.signalType(String(repeating: "a", count: 128))
    }

    @Test(arguments: [String(repeating: "a", count: 129), "a b", "chat!", "é", "a/b", "a.b", "\u{0}"])
    func signalTypeRefusesWith1461(_ type: String) {
        #expect(throws: ProtocolError.self) { try Validation.signalType(type) }
        do {
            try Validation.signalType(type)
        } catch {
            #expect(error.code == .invalidSignalType)
        }
    }

    @Test func signalDataLimitIs8192Utf8Bytes() throws {
        try Validation.signalData(String(repeating: "x", count: 8_192))
        do {
            try Validation.signalData(String(repeating: "x", count: 8_193))
            Issue.record("8193 bytes accepted")
        } catch {
            #expect(error.code == .signalDataTooLong)
        }
        // 4097 two-byte characters are 8194 bytes.
        #expect(throws: ProtocolError.self) { try Validation.signalData(String(repeating: "é", count: 4_097)) }
    }

    @Test func connectionDataLimitIs1000Characters() throws {
        try Validation.connectionData(String(repeating: "é", count: 1_000))
        #expect(throws: ProtocolError.self) { try Validation.connectionData(String(repeating: "a", count: 1_001)) }
    }

    @Test func tokenLifetimeIsOneSecondToThirtyDays() throws {
        try Validation.tokenLifetime(1)
        try Validation.tokenLifetime(30 * 86_400)
        #expect(throws: ProtocolError.self) { try Validation.tokenLifetime(0) }
        #expect(throws: ProtocolError.self) { try Validation.tokenLifetime(30 * 86_400 + 1) }
    }

    /// A token request's `expireTime` comes from a REST body: any Int64, against any clock, is an expiry or a 1011.
    @Test func tokenExpiryTakesAnyNumberWithoutTrapping() throws {
        let now: Int64 = 1_732_190_000
        #expect(try Validation.tokenExpiry(nil, now: now) == now + 86_400)
        #expect(try Validation.tokenExpiry(now + 1, now: now) == now + 1)
        #expect(try Validation.tokenExpiry(now + 30 * 86_400, now: now) == now + 30 * 86_400)
        let extremes: [Int64] = [.min, .min + 1, -1, 0, 1, now, .max - 1, .max]
        for clock in extremes {
            for requested in extremes + [nil] {
                do {
                    let expiry = try Validation.tokenExpiry(requested, now: clock)
                    let lifetime = expiry.subtractingReportingOverflow(clock)
                    #expect(!lifetime.overflow && (1...ProtocolLimits.maxTokenLifetime).contains(lifetime.partialValue))
                } catch {
                    #expect(error.code == .invalidParameter)
                }
            }
        }
    }

    @Test func videoDimensionsMustBePositiveAndBounded() throws {
        try Validation.videoDimensions(nil)
        try Validation.videoDimensions(VideoDimensions(width: 640, height: 480))
        #expect(throws: ProtocolError.self) { try Validation.videoDimensions(VideoDimensions(width: 0, height: 480)) }
        #expect(throws: ProtocolError.self) {
            try Validation.videoDimensions(VideoDimensions(width: 640, height: 16_385))
        }
    }

    @Test func anAnnouncedFrameRateMustBeFiniteAndInOneToOneHundredTwenty() throws {
        try Validation.frameRate(nil)
        for rate in [1, 7.5, 15, 29.97, 30, 60, 120] { try Validation.frameRate(rate) }
        for rate in [0, 0.99, 120.5, 1_000, -30, .infinity, -.infinity, .nan] {
            #expect(throws: ProtocolError.self, "\(rate)") { try Validation.frameRate(rate) }
        }
        do {
            try Validation.frameRate(0)
        } catch {
            #expect(error.code == .invalidParameter)
        }
    }

    @Test func roleCapabilitiesMatchTheTable() {
        #expect(Role.subscriber.maySubscribe && !Role.subscriber.mayPublish && !Role.subscriber.maySignal)
        #expect(Role.publisher.maySubscribe && Role.publisher.mayPublish && Role.publisher.maySignal)
        #expect(!Role.publisherOnly.maySubscribe && Role.publisherOnly.mayPublish && !Role.publisherOnly.maySignal)
        #expect(Role.moderator.mayModerate && Role.allCases.filter(\.mayModerate) == [.moderator])
        #expect(Role.publisherOnly.rawValue == "publisher-only")
    }
}
