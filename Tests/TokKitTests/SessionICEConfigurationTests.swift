import Testing
import TokKitProtocol
import TokKitServer

@testable import TokKit

/// The servers and policy a session's media connections use: the session server's (from `connected`), the app's
/// own, and the transport policy.
extension LiveServer {
    @Suite struct SessionICEConfigurationTests {
        static let stun = ICEServerInfo(urls: ["stun:198.18.9.2:3478"])
        static let turn = ICEServerInfo(urls: ["turn:198.18.9.2:3478?transport=tcp"])

        static func server() async throws -> TestServer {
            try await TestServer.start { c in
                c.iceServers = [stun, turn]
                c.turnSecret = "coturn-secret"
            }
        }

        @Test func theSessionServersComeFirstThenTheAppsOwn() async throws {
            let server = try await Self.server()
            defer { Task { await server.server.stop() } }
            var settings = SessionSettings.quiet
            try settings.ice.addServer(url: "turns:198.18.9.3:5349", username: "app", credential: "pw")
            let (session, _) = try await server.connected(settings: settings)
            let ice = session.iceConfiguration(base: .loopback)
            #expect(ice.localAddresses == ["127.0.0.1"], "host gathering comes from the negotiator")
            #expect(ice.transportPolicy == .all)
            #expect(ice.servers.map(\.urls) == [Self.stun.urls, Self.turn.urls, ["turns:198.18.9.3:5349"]])
            let minted = ice.servers[1]
            #expect(minted.username.hasSuffix(":\(session.connection!.connectionID)") && !minted.credential.isEmpty)
            #expect(ice.servers[2].username == "app" && ice.servers[2].credential == "pw")
            await session.disconnect()
        }

        @Test func customOnlyAndRelayPolicy() async throws {
            let server = try await Self.server()
            defer { Task { await server.server.stop() } }
            var settings = SessionSettings.quiet
            settings.ice = SessionICEConfiguration(
                customServers: [ICEServer(urls: ["turn:198.18.9.4"], username: "u", credential: "p")],
                includeServers: .custom, transportPolicy: .relay)
            let (session, _) = try await server.connected(settings: settings)
            let ice = session.iceConfiguration(base: .allInterfaces)
            #expect(ice.servers == [ICEServer(urls: ["turn:198.18.9.4"], username: "u", credential: "p")])
            #expect(ice.transportPolicy == .relay)
            #expect(ice.includesLoopback)
            await session.disconnect()
        }

        @Test func hostNamesAreResolvedWhenTheSessionConnectsNotWhenAnAgentIsMade() async throws {
            let server = try await TestServer.start { c in
                c.iceServers = [ICEServerInfo(urls: ["stun:localhost:3478"])]
            }
            defer { Task { await server.server.stop() } }
            var settings = SessionSettings.quiet
            try settings.ice.addServer(url: "turn:localhost?transport=tcp", username: "u", credential: "p")
            try settings.ice.addServer(url: "stun:no-such-host.invalid")
            let (session, _) = try await server.connected(settings: settings)
            await session.iceHostNamesResolved()
            let ice = session.iceConfiguration(base: .loopback)
            #expect(ice.servers.map(\.urls) == [["stun:127.0.0.1:3478"], ["turn:127.0.0.1:3478?transport=tcp"]],
                    "names resolved ahead; one that does not resolve is left out, not looked up again by an agent")
            await session.disconnect()
        }

        @Test func addServerRefusesWhatIsNotAnICEURL() {
            var ice = SessionICEConfiguration()
            #expect(throws: SessionError.self) { try ice.addServer(url: "http://198.18.9.2") }
            #expect(throws: SessionError.self) { try ice.addServer(url: "stun:") }
            #expect(ice.customServers.isEmpty)
        }
    }
}
