import Testing
import TokKitProtocol

@testable import TokKit

@Suite struct SessionErrorTests {
    /// Every case, one per code.
    static let all: [SessionError] = [
        .authorizationFailure("a"), .invalidSession("b"), .connectionFailed("c"), .notConnected,
        .invalidParameter("d"), .illegalState("e"), .connectionTimeout, .connectionDropped, .resumeFailed("f"),
        .incompatibleVersion("g"), .subscriberNotFound, .publisherNotFound, .signalDataTooLong("h"),
        .invalidSignalType("i"), .unableToPublish("j"), .unableToSignal("k"), .unableToForceDisconnect("l"),
        .unableToForceUnpublish("m"), .unableToForceMute("n"), .unableToSendSignal("o"), .unableToSubscribe("p"),
        .streamNotFound("q"), .internalError("r"),
    ]

    @Test func codesAreUniqueAndRoundTrip() {
        let codes = Self.all.map(\.code)
        #expect(Set(codes).count == codes.count)
        for error in Self.all {
            #expect(SessionError(code: error.code, message: error.message) == error, "\(error)")
        }
    }

    @Test func unknownCodePassesThrough() {
        let e = SessionError(code: 4242, message: "new")
        #expect(e == .server(code: 4242, message: "new"))
        #expect(e.code == 4242)
        #expect(e.description == "SessionError 4242: new")
    }

    /// The client's codes are the wire protocol's codes.
    @Test func codesMatchTheProtocol() {
        let pairs: [(SessionError, ErrorCode)] = [
            (.authorizationFailure(""), .authorizationFailure), (.invalidSession(""), .invalidSessionID),
            (.connectionFailed(""), .connectFailed), (.notConnected, .notConnected),
            (.invalidParameter(""), .invalidParameter), (.illegalState(""), .illegalState),
            (.resumeFailed(""), .resumeFailed), (.incompatibleVersion(""), .incompatibleVersion),
            (.subscriberNotFound, .subscriberNotFound), (.signalDataTooLong(""), .signalDataTooLong),
            (.invalidSignalType(""), .invalidSignalType), (.unableToPublish(""), .unableToPublish),
            (.unableToSignal(""), .unableToSignal), (.unableToForceDisconnect(""), .unableToForceDisconnect),
            (.unableToForceUnpublish(""), .unableToForceUnpublish), (.unableToForceMute(""), .unableToForceMute),
            (.unableToSubscribe(""), .unableToSubscribe), (.streamNotFound(""), .streamNotFound),
            (.internalError(""), .internalError),
        ]
        for (client, wire) in pairs {
            #expect(client.code == wire.rawValue, "\(client)")
        }
    }

    @Test func sdkCodes() {
        #expect(SessionError.authorizationFailure("").code == 1004)
        #expect(SessionError.invalidSession("").code == 1005)
        #expect(SessionError.connectionFailed("").code == 1006)
        #expect(SessionError.notConnected.code == 1010)
        #expect(SessionError.signalDataTooLong("").code == 1413)
        #expect(SessionError.invalidSignalType("").code == 1461)
    }
}
