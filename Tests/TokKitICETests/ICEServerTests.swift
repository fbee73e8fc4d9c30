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

    @Test func hostNamesAreReplacedByTheirAddressesInCanonicalURLs() {
        let server = ICEServer(
            urls: ["stun:stun.example.org", "turn:turn.example.org:3479?transport=tcp", "turns:turn.example.org",
                   "turn:198.18.0.9", "turn:v6.example.org", "not a url"],
            username: "u", credential: "c")
        #expect(server.hostNames == ["stun.example.org", "turn.example.org", "v6.example.org"])
        let numeric = server.replacingHostNames(
            ["stun.example.org": "198.18.0.7", "turn.example.org": "198.18.0.8", "v6.example.org": "2001:db8::1"])
        #expect(numeric.urls == [
            "stun:198.18.0.7:3478", "turn:198.18.0.8:3479?transport=tcp", "turns:198.18.0.8:5349?transport=tcp",
            "turn:198.18.0.9", "turn:[2001:db8::1]:3478?transport=udp", "not a url",
        ])
        #expect(numeric.hostNames.isEmpty)
        #expect(numeric.username == "u" && numeric.credential == "c")
        for url in numeric.urls.dropLast() {
            #expect(HostResolver.isNumeric(try! ICEServerURL(parsing: url).host), "\(url)")
        }
    }

    @Test func namesKnownNotToResolveAreLeftOut() {
        let server = ICEServer(urls: ["stun:gone.example.org", "turn:turn.example.org", "turn:198.18.0.9"])
        let kept = server.replacingHostNames(["turn.example.org": "198.18.0.8"], removing: ["gone.example.org"])
        #expect(kept?.urls == ["turn:198.18.0.8:3478?transport=udp", "turn:198.18.0.9"])
        #expect(ICEServer(urls: ["stun:gone.example.org"]).replacingHostNames([:], removing: ["gone.example.org"]) == nil)
        #expect(ICEServer(urls: []).replacingHostNames([:]).urls.isEmpty, "no URL, no trap")
    }

    @Test func theResolverAnswersAsynchronouslyAndNumericHostsAtOnce() async throws {
        #expect(try await ICEHostResolver.numericAddress(of: "198.18.0.1") == "198.18.0.1")
        #expect(try await ICEHostResolver.numericAddress(of: "::1") == "::1")
        #expect(try await ICEHostResolver.numericAddress(of: "localhost") == "127.0.0.1")
        await #expect(throws: ICEError.unresolvableHost("no-such-host.invalid")) {
            try await ICEHostResolver.numericAddress(of: "no-such-host.invalid")
        }
    }
}
