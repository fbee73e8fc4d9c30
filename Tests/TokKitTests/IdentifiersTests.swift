import Foundation
import Testing
import TokKit

@Suite struct IdentifiersTests {
    @Test func wrapsTheServersStringAndPrintsIt() {
        let id = StreamID("s-1")
        #expect(id.rawValue == "s-1")
        #expect("\(id)" == "s-1")
        #expect(id == "s-1")
        #expect(StreamID(rawValue: "s-1") == id)
    }

    @Test func encodesAsAPlainString() throws {
        let encoded = try JSONEncoder().encode([ConnectionID("c-1"), ConnectionID("c-2")])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["c-1","c-2"]"#)
        #expect(try JSONDecoder().decode([ConnectionID].self, from: encoded) == ["c-1", "c-2"])
    }

    @Test func hashesAndSortsByTheRawString() {
        let ids: Set<SubscriberID> = ["b", "a", "b"]
        #expect(ids.count == 2)
        #expect(ids.sorted() == ["a", "b"])
        #expect([ArchiveID("z"), ArchiveID("m")].min() == "m")
    }

    @Test func theSessionsPublicValuesCarryTypedIdentifiers() {
        let connection = Connection(connectionID: "c-9", creationTime: Date(timeIntervalSince1970: 0), data: "")
        let stream = SessionStream(
            streamID: "s-9", connection: connection, name: "", hasAudio: true, hasVideo: true, videoDimensions: nil,
            videoType: .camera, creationTime: Date(timeIntervalSince1970: 0))
        let byStream: [StreamID: SessionStream] = [stream.id: stream]
        #expect(byStream[StreamID("s-9")]?.connection.id == ConnectionID("c-9"))
        #expect(stream.description.contains("s-9") && stream.description.contains("c-9"))
    }
}
