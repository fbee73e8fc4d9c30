import Crypto
import Foundation
import Testing
import TokKitProtocol

@testable import TokKitServer

/// TURN REST API credentials (what coturn's `use-auth-secret` checks) and their delivery in `connected`.
@Suite struct TURNCredentialsTests {
    @Test func credentialsFollowTheTURNRESTScheme() {
        let minted = TURNCredentials(secret: "turn-secret-0123", lifetimeSeconds: 86_400).make(user: "c1", now: 1_700_000_000)
        #expect(minted.username == "1700086400:c1")
        // base64(HMAC-SHA1("turn-secret-0123", "1700086400:c1")), computed independently with Python's hmac.
        #expect(minted.credential == "I/cJ94UScbDsM9qKZTlHEy7WDuQ=")
        // An expiry past Int64.max is clamped, never a trap.
        let far = TURNCredentials(secret: "s", lifetimeSeconds: 604_800).make(user: "c", now: .max - 10)
        #expect(far.username == "\(Int64.max):c")
    }

    @Test func onlyTURNServersWithoutStaticCredentialsGetMintedOnes() {
        let servers = [ICEServerInfo(urls: ["stun:198.18.9.2:3478"]),
                       ICEServerInfo(urls: ["turn:198.18.9.2:3478", "turns:198.18.9.2:5349"]),
                       ICEServerInfo(urls: ["turn:198.18.9.3"], username: "static", credential: "pw")]
        let issued = TURNCredentials.issue(servers, with: TURNCredentials(secret: "k", lifetimeSeconds: 60),
                                           user: "conn", now: 100)
        #expect(issued[0] == servers[0])
        #expect(issued[1].urls == servers[1].urls && issued[1].username == "160:conn" && issued[1].credential != nil)
        #expect(issued[2] == servers[2])
        #expect(TURNCredentials.issue(servers, with: nil, user: "conn", now: 100) == servers)
    }

    @Test func connectedCarriesTheServersWithFreshCredentials() async throws {
        let secret = "coturn-static-auth-secret"
        try await TestServer.with({ c in
            c.iceServers = [ICEServerInfo(urls: ["stun:198.18.9.2:3478"]),
                            ICEServerInfo(urls: ["turn:198.18.9.2:3478?transport=udp", "turns:198.18.9.2:5349"])]
            c.turnSecret = secret
            c.turnCredentialLifetime = 3_600
        }) { server in
            let session = try await server.session()
            let before = Int64(Date().timeIntervalSince1970)
            let (client, connected) = try await server.join(session)
            let after = Int64(Date().timeIntervalSince1970)
            let servers = try #require(connected.iceServers)
            #expect(servers.count == 2)
            #expect(servers[0] == ICEServerInfo(urls: ["stun:198.18.9.2:3478"]))
            let turn = servers[1]
            #expect(turn.urls == ["turn:198.18.9.2:3478?transport=udp", "turns:198.18.9.2:5349"])
            let username = try #require(turn.username)
            let parts = username.split(separator: ":", maxSplits: 1)
            #expect(parts.count == 2 && String(parts[1]) == connected.connection.id)
            let expiry = try #require(Int64(parts[0]))
            #expect((before + 3_600...after + 3_600).contains(expiry))
            // What coturn computes from the shared secret to verify it.
            let mac = HMAC<Insecure.SHA1>.authenticationCode(for: Data(username.utf8),
                                                             using: SymmetricKey(data: Data(secret.utf8)))
            #expect(turn.credential == Data(mac).base64EncodedString())
            client.close()
        }
    }

    @Test func withoutServersConnectedHasNone() async throws {
        try await TestServer.with { server in
            let (client, connected) = try await server.join(try await server.session())
            #expect(connected.iceServers == nil)
            client.close()
        }
    }

    @Test func badICEServerConfigurationsAreRefused() {
        func refused(_ change: (inout ServerConfiguration) -> Void) -> Bool {
            var c = ServerConfiguration(apiKey: TestServer.apiKey, apiSecret: TestServer.apiSecret)
            change(&c)
            do { try c.validate(); return false } catch { return true }
        }
        #expect(refused { $0.iceServers = [ICEServerInfo(urls: ["turn:198.18.9.2"])] }, "TURN without credentials or secret")
        #expect(refused { $0.iceServers = [ICEServerInfo(urls: ["http://198.18.9.2"])] })
        #expect(refused { $0.iceServers = [ICEServerInfo(urls: [])] })
        #expect(refused { $0.iceServers = [ICEServerInfo(urls: ["turn:h"], username: "u")] })
        #expect(refused { $0.turnSecret = "" })
        #expect(refused { $0.turnCredentialLifetime = 10 })
        #expect(!refused { $0.iceServers = [ICEServerInfo(urls: ["stun:h"]), ICEServerInfo(urls: ["turn:h"], username: "u", credential: "p")] })
        #expect(!refused { $0.iceServers = [ICEServerInfo(urls: ["turns:h:5349"])]; $0.turnSecret = "s" })
    }

    @Test func theConfigFileReadsTheICEFields() throws {
        let json = #"{"apiKey":"k","apiSecret":"0123456789abcdef","iceServers":[{"urls":["stun:h"]},{"urls":["turn:h"]}],"turnSecret":"s","turnCredentialLifetime":600}"#
        let c = try JSONDecoder().decode(ServerConfiguration.self, from: Data(json.utf8))
        #expect(c.iceServers == [ICEServerInfo(urls: ["stun:h"]), ICEServerInfo(urls: ["turn:h"])])
        #expect(c.turnSecret == "s" && c.turnCredentialLifetime == 600)
        try c.validate()
    }
}
