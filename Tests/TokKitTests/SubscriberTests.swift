import FoundationEssentials
import Testing

@testable import TokKit

@Suite struct SubscriberTests {
    static let stream = SessionStream(
        streamID: "s1", connection: Connection(connectionID: "c1", creationTime: .init(millisecondsSince1970: 0), data: ""),
        name: "cam", hasAudio: true, hasVideo: true, videoDimensions: nil, videoType: .camera,
        creationTime: .init(millisecondsSince1970: 0))

    @Test func lifecycleIsOneWay() throws {
        let sub = Subscriber(stream: Self.stream)
        let session = Session(apiKey: "k", sessionID: "s", serverURL: URL(string: "http://127.0.0.1:1")!)
        #expect(sub.subscriberID == nil && !sub.isConnected)
        let (streamID, audio, video) = try sub.attach(to: session)
        #expect(streamID == "s1" && audio && video)
        #expect(throws: SessionError.self) { try sub.attach(to: session) }
        #expect(sub.accepted(subscriberID: "sub1"))
        #expect(sub.subscriberID == "sub1")
        #expect(!sub.accepted(subscriberID: "sub2"))
        #expect(sub.markConnected())
        #expect(!sub.markConnected())
        #expect(sub.isConnected)
        #expect(sub.end() == .connected(subscriberID: "sub1"))
        #expect(sub.end() == nil)
        #expect(sub.session == nil && sub.subscriberID == nil)
        #expect(throws: SessionError.self) { try sub.attach(to: session) }
    }

    @Test func videoChangeIsReportedOnlyWhenEffective() throws {
        let sub = Subscriber(stream: Self.stream)
        var off = Self.stream
        off.hasVideo = false
        // Not yet subscribed: nothing to report.
        #expect(sub.update(stream: off) == nil)
        #expect(sub.update(stream: Self.stream) == nil)
        let session = Session(apiKey: "k", sessionID: "s", serverURL: URL(string: "http://127.0.0.1:1")!)
        _ = try sub.attach(to: session)
        _ = sub.accepted(subscriberID: "x")
        #expect(sub.update(stream: off) == false)
        #expect(sub.update(stream: off) == nil)
        #expect(sub.update(stream: Self.stream) == true)
        sub.subscribeToVideo = false
        #expect(sub.update(stream: off) == nil)  // not wanted anyway
    }
}
