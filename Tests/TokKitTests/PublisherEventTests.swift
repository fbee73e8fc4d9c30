import Testing
import TokKitProtocol
import TokKitTesting

@testable import TokKit

extension PublisherEvent {
    var name: String {
        switch self {
        case .streamCreated: "streamCreated"
        case .streamDestroyed: "streamDestroyed"
        case .failed(let error): "failed(\(error.code))"
        case .statisticsUpdated: "statisticsUpdated"
        }
    }

    var streamID: StreamID? {
        switch self {
        case .streamCreated(let s), .streamDestroyed(let s): s.streamID
        case .failed, .statisticsUpdated: nil
        }
    }
}

extension LiveServer {
    /// `publisher.events`: the delegate's events as a stream, through the real server.
    @Suite struct PublisherEventTests {
        @Test func theStreamSeesWhatTheDelegateSeesAcrossPublishes() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (a, _) = try await server.connected()
            let delegate = PublisherRecorder()
            let publisher = Publisher(name: "one", delegate: delegate)
            let events = StreamRecorder(publisher.events, where: { !$0.isStatistics })
            try await a.publish(publisher)
            let first = try #require(publisher.stream)
            try await a.unpublish(publisher)
            try await a.publish(publisher)
            let second = try #require(publisher.stream)
            await a.disconnect()

            let expected = ["streamCreated", "streamDestroyed", "streamCreated", "streamDestroyed"]
            #expect(await eventually { events.all.map(\.name) == expected }, "\(events.all.map(\.name))")
            #expect(await eventually { delegate.events == expected }, "\(delegate.events)")
            #expect(events.all.compactMap(\.streamID)
                == [first.streamID, first.streamID, second.streamID, second.streamID])
            #expect(!events.ended, "a publisher can be published again: its stream goes on")
        }

        @Test func aRefusedPublishIsAFailedEvent() async throws {
            let server = try await TestServer.start()
            defer { Task { await server.stop() } }
            let (viewer, _) = try await server.connected(role: .subscriber)
            let delegate = PublisherRecorder()
            let publisher = Publisher(name: "not allowed", delegate: delegate)
            let events = StreamRecorder(publisher.events, where: { !$0.isStatistics })
            await #expect(throws: SessionError.self) { try await viewer.publish(publisher) }
            #expect(await eventually { events.all.map(\.name) == ["failed(1500)"] }, "\(events.all.map(\.name))")
            #expect(await eventually { delegate.events == ["failed(1500)"] })
            await viewer.disconnect()
        }

        @Test func releasingThePublisherEndsItsStreams() async {
            var publisher: Publisher? = Publisher(name: "brief")
            let events = StreamRecorder(publisher!.events, where: { !$0.isStatistics })
            #expect(!events.ended)
            publisher = nil
            #expect(await eventually { events.ended })
        }
    }
}
