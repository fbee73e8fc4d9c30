import Testing
@testable import TokKitICE

@Suite struct ICEServerTests {
    @Test func urlsParsePerRFC7064And7065() throws {
        let stun = try ICEServerURL(parsing: "stun:stun.example.org")
        #expect(stun.kind == .stun && stun.host == "stun.example.org" && stun.port == 3478)
        let turn = try ICEServerURL(parsing: "turn:10.0.0.1:3479?transport=tcp")
        #expect(turn.kind == .turnTCP && turn.host == "10.0.0.1" && turn.port == 3479)
        let turns = try ICEServerURL(parsing: "turns:[::1]")
        #expect(turns.kind == .turnTLS && turns.host == "::1" && turns.port == 5349)
        #expect(try ICEServerURL(parsing: "TURN:h:1?transport=udp").kind == .turnUDP)
    }

    @Test(arguments: ["stun", "http://x", "stun:", "stun:h:0", "stun:h:70000", "turn:h?transport=sctp",
                      "stuns:h", "stun:h?transport=udp", "turn:[::1", "turn:u@h"])
    func malformedURLsAreRejected(url: String) {
        #expect(throws: ICEError.invalidServerURL(url)) { try ICEServerURL(parsing: url) }
    }

    @Test func hostsResolveToNumericAddresses() throws {
        #expect(try HostResolver.numericAddress("127.0.0.1") == "127.0.0.1")
        #expect(try HostResolver.numericAddress("localhost") == "127.0.0.1")
        #expect(throws: ICEError.unresolvableHost("no-such-host.invalid")) {
            try HostResolver.numericAddress("no-such-host.invalid")
        }
    }
}
