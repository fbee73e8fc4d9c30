import FoundationEssentials
import Testing
import TokKitProtocol

@testable import TokKit

extension LiveServer {
    /// Signals between real clients through the real server.
    @Suite struct SessionSignalingTests {
        @Test func signalToAllReachesEveryoneStampedWithTheSender() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, ra) = try await server.connected()
            let (b, rb) = try await server.connected()
            let (c, rc) = try await server.connected()
            let aID = try #require(a.connection).connectionID

            try await a.signal(type: "chat", data: "hello 👋")
            for r in [ra, rb, rc] {
                let got = await r.wait(for: 1) { $0.signal }
                #expect(got.count == 1)
                #expect(got.first?.type == "chat")
                #expect(got.first?.data == "hello 👋")
                #expect(got.first?.from == aID)
            }
            for s in [a, b, c] { await s.disconnect() }
        }

        @Test func signalToOneConnectionReachesOnlyIt() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, ra) = try await server.connected()
            let (b, rb) = try await server.connected()
            let (c, rc) = try await server.connected()
            let bConnection = try #require(b.connection)

            try await a.signal(type: "dm", data: "for b", to: bConnection)
            // Then a broadcast, as a marker: once C has it, C would have had the direct one before it.
            try await a.signal(type: "marker", data: "")
            let atB = await rb.wait(for: 2) { $0.signal }
            #expect(atB.map(\.type) == ["dm", "marker"])
            #expect(atB.first?.from == a.connection?.connectionID)
            #expect(await rc.wait(for: 1) { $0.signal }.map(\.type) == ["marker"])
            #expect(await ra.wait(for: 1) { $0.signal }.map(\.type) == ["marker"])
            for s in [a, b, c] { await s.disconnect() }
        }

        @Test func manySignalsArriveInOrderExactlyOnce() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, _) = try await server.connected()
            let (b, rb) = try await server.connected()
            for i in 0..<200 { try await a.signal(type: "n", data: "\(i)") }
            let got = await rb.wait(for: 200) { $0.signal }
            #expect(got.map(\.data) == (0..<200).map { "\($0)" })
            await a.disconnect()
            await b.disconnect()
        }

        @Test func limitsFailWithTheSdkCodesOnBothSides() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, _) = try await server.connected()
            let (b, rb) = try await server.connected()
            let longType = String(repeating: "t", count: 129)
            let longData = String(repeating: "d", count: 8193)

            // Client-side checks.
            #expect(await signalError(a, type: longType, data: "")?.code == 1461)
            #expect(await signalError(a, type: "no spaces", data: "")?.code == 1461)
            #expect(await signalError(a, type: "t", data: longData)?.code == 1413)
            // At the limit, accepted.
            #expect(await signalError(a, type: String(repeating: "t", count: 128),
                                      data: String(repeating: "d", count: 8192)) == nil)

            // The server, asked directly (bypassing the client's checks), answers with the same codes.
            #expect(await rawSignalError(a, type: longType, data: "")?.code == 1461)
            #expect(await rawSignalError(a, type: "no spaces", data: "")?.code == 1461)
            #expect(await rawSignalError(a, type: "t", data: longData)?.code == 1413)
            // Unknown recipient: the server's 1011.
            let ghost = Connection(connectionID: "nobody", creationTime: .init(millisecondsSince1970: 0), data: "")
            #expect(await signalError(a, type: "t", data: "", to: ghost)?.code == 1011)

            // Only the one valid signal arrived.
            let got = await rb.wait(for: 1) { $0.signal }
            #expect(got.count == 1 && got.first?.data.utf8.count == 8192)
            await a.disconnect()
            await b.disconnect()
        }

        @Test func signalWhenNotConnectedIs1010() async throws {
            let session = Session(apiKey: "k", sessionID: "s", serverURL: URL(string: "http://127.0.0.1:1")!, settings: .quiet)
            #expect(await signalError(session, type: "t", data: "")?.code == 1010)
        }

        // MARK: Helpers

        private func signalError(_ s: Session, type: String, data: String, to: Connection? = nil) async
            -> SessionError?
        {
            do {
                try await s.signal(type: type, data: data, to: to)
                return nil
            } catch {
                return error
            }
        }

        /// Sends a signal request without the client's own validation.
        private func rawSignalError(_ s: Session, type: String, data: String) async -> SessionError? {
            let result = await s.request(.signal(.init(type: type, data: data)), purpose: .signal(retry: false))
            if case .failure(let e) = result { return e }
            return nil
        }
    }
}
