import Foundation
import Hummingbird
import Testing
import TokKitProtocol
@testable import TokKitServer

/// Quick start (issue 17, item 6): off by default in a standalone server, rate limited per address when on.
@Suite(.timeLimit(.minutes(1))) struct QuickStartTests {
    /// 20,000 credential-free `GET /room/<name>` made 20,000 sessions in 6.5 s. Now each address gets
    /// `quickStartBurst` calls at once (here 3, with next to no refill); the next, on any quick-start route, is
    /// 429 / 1430 and creates nothing.
    @Test func quickStartCallsAreRateLimitedPerAddress() async throws {
        try await TestServer.with({
            $0.quickStartBurst = 3
            $0.quickStartRate = 0.001
        }) { server in
            var sessionID = ""
            for name in ["a", "b", "c"] {
                let reply = try await server.http(.get, "/room/\(name)")
                #expect(reply.status == .ok)
                sessionID = try WireCodec.decode(SessionCredentials.self, from: reply.body).sessionID
            }
            for path in ["/room/d", "/session", "/credentials/\(sessionID)"] {
                let reply = try await server.http(.get, path)
                #expect(reply.status == .tooManyRequests, "\(path)")
                #expect(TestServer.restError(reply.body)?.code == .limitReached, "\(path)")
            }
            #expect(await server.server.stats().sessions == 3)
        }
    }

    @Test func theBucketRefillsAtTheRateUpToTheBurst() {
        let limiter = QuickStartLimiter(rate: 2, burst: 2)
        let start = ContinuousClock.now
        #expect(limiter.allow("a", now: start) && limiter.allow("a", now: start))
        #expect(!limiter.allow("a", now: start))
        #expect(limiter.allow("b", now: start))  // per address
        #expect(!limiter.allow("a", now: start + .milliseconds(400)))
        #expect(limiter.allow("a", now: start + .milliseconds(1_000)))  // 0.5 s buys one call
        #expect(limiter.allow("a", now: start + .seconds(60)) && limiter.allow("a", now: start + .seconds(60)))
        #expect(!limiter.allow("a", now: start + .seconds(60)))  // never more than the burst
    }

    /// Past `maxAddresses` buckets, the idle (full) ones are forgotten first.
    @Test func theBucketsAreBounded() {
        let limiter = QuickStartLimiter(rate: 1, burst: 1, maxAddresses: 2)
        let start = ContinuousClock.now
        #expect(limiter.allow("a", now: start) && limiter.allow("b", now: start))
        #expect(limiter.allow("c", now: start + .seconds(5)))  // a and b refilled: forgotten
        #expect(!limiter.allow("c", now: start + .seconds(5)))
    }

    /// The `tokkit-server` executable itself: quick start off by default (`GET /session` and `/room/…` are 404 /
    /// 1011), on with `--quick-start`.
    @Test func theExecutableServesQuickStartOnlyWithTheFlag() async throws {
        for (arguments, expected) in [([String](), 404), (["--quick-start"], 200)] {
            let server = try await ServerProcess(arguments)
            for path in ["/session", "/room/demo"] {
                let tcp = try await RawTCP.connect(port: server.port)
                await tcp.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                let reply = await tcp.readUntilClosed(within: .seconds(5))
                #expect(reply.status == expected, "\(arguments) \(path): \(reply.text.prefix(200))")
            }
            #expect(await server.stop() == 0)
        }
    }

    /// `tokkit-server` starts from ``ServerConfiguration/standalone``: quick start off unless the config file (or
    /// `--quick-start`) turns it on; an embedded server keeps it on.
    @Test func aStandaloneServerHasQuickStartOffUnlessAskedFor() throws {
        #expect(ServerConfiguration().quickStart && !ServerConfiguration.standalone.quickStart)
        let directory = FileManager.default.temporaryDirectory
        let off = directory.appendingPathComponent("tokkit-quickstart-off-\(UInt64.random(in: 0...UInt64.max)).json")
        let on = directory.appendingPathComponent("tokkit-quickstart-on-\(UInt64.random(in: 0...UInt64.max)).json")
        defer {
            try? FileManager.default.removeItem(at: off)
            try? FileManager.default.removeItem(at: on)
        }
        try Data(#"{"apiKey":"k","port":4000}"#.utf8).write(to: off)
        try Data(#"{"apiKey":"k","quickStart":true}"#.utf8).write(to: on)
        let fromOff = try ServerConfiguration.load(path: off.path, defaults: .standalone)
        #expect(!fromOff.quickStart && fromOff.port == 4000 && fromOff.apiKey == "k")
        #expect(try ServerConfiguration.load(path: on.path, defaults: .standalone).quickStart)
    }
}
