import Testing

@testable import TokKit

@Suite struct SignalingURLTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080", "ws://127.0.0.1:8080/signaling"),
        ("http://127.0.0.1:8080/", "ws://127.0.0.1:8080/signaling"),
        ("https://example.org", "wss://example.org/signaling"),
        ("ws://127.0.0.1:9/custom", "ws://127.0.0.1:9/custom"),
        ("WSS://h:1", "wss://h:1/signaling"),
    ])
    func derives(_ input: String, _ expected: String) throws {
        #expect(try SignalingURL.make(from: input) == expected)
    }

    @Test(arguments: ["", "127.0.0.1:8080", "ftp://x", "http://", "http:///path"])
    func rejects(_ input: String) {
        #expect(throws: SessionError.self) { try SignalingURL.make(from: input) }
    }
}
