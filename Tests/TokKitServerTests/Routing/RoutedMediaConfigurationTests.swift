import Foundation
import Testing
import TokKitServer

/// The list of Janus instances (`ServerConfiguration.janus`): the JSON config file's one object or array, each
/// entry validated, and `tokkit-server --janus URL` repeated.
@Suite("Routed media configuration") struct RoutedMediaConfigurationTests {
    /// Loads `json` as a config file over the standalone defaults.
    private func load(_ json: String) throws -> ServerConfiguration {
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("tokkit-janus-\(UInt64.random(in: 0...UInt64.max)).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(json.utf8).write(to: file)
        return try ServerConfiguration.load(path: file.path, defaults: .standalone)
    }

    @Test func theConfigFileTakesOneInstanceOrAnArray() throws {
        #expect(try load(#"{"apiKey":"k"}"#).janus.isEmpty, "none by default")
        let one = try load(#"{"janus":{"url":"ws://10.0.0.1:8188","apiSecret":"s","adminKey":"a"}}"#)
        #expect(one.janus == [RoutedMediaConfiguration(url: "ws://10.0.0.1:8188", apiSecret: "s", adminKey: "a")])
        #expect(one.janus.first?.requestTimeoutMs == 5_000, "requestTimeoutMs may be left out")
        let two = try load(#"""
            {"janus":[{"url":"ws://10.0.0.1:8188","apiSecret":"s1"},
                      {"url":"wss://10.0.0.2:8989","adminKey":"a2","requestTimeoutMs":2000}]}
            """#)
        #expect(two.janus == [
            RoutedMediaConfiguration(url: "ws://10.0.0.1:8188", apiSecret: "s1"),
            RoutedMediaConfiguration(url: "wss://10.0.0.2:8989", adminKey: "a2", requestTimeoutMs: 2_000),
        ])
        var valid = two
        valid.apiKey = "k"
        valid.apiSecret = "0123456789abcdef"
        try valid.validate()
        #expect(try load(#"{"janus":[]}"#).janus.isEmpty)
        // Neither an object nor an array of them, or an entry without its url: the file is refused.
        for bad in [#"{"janus":"ws://10.0.0.1:8188"}"#, #"{"janus":[{"url":"ws://a:1"},{"apiSecret":"s"}]}"#,
                    #"{"janus":{"apiSecret":"s"}}"#, #"{"janus":[["ws://a:1"]]}"#] {
            #expect(throws: TokKitServerError.self, "\(bad)") { try load(bad) }
        }
    }

    @Test func everyInstanceIsValidated() throws {
        var configuration = ServerConfiguration(apiKey: "k", apiSecret: "0123456789abcdef")
        configuration.janus = [RoutedMediaConfiguration(url: "ws://10.0.0.1:8188"),
                               RoutedMediaConfiguration(url: "http://10.0.0.2:8088")]
        #expect(refusal(configuration).contains("janus[1] url"))
        configuration.janus[1] = RoutedMediaConfiguration(url: "ws://10.0.0.2:8188", requestTimeoutMs: 0)
        #expect(refusal(configuration).contains("janus[1] requestTimeoutMs"))
        configuration.janus[1] = RoutedMediaConfiguration(url: "ws://10.0.0.1:8188")
        #expect(refusal(configuration).contains("once"))
        configuration.janus = (0...RoutedMediaConfiguration.maxInstances).map {
            RoutedMediaConfiguration(url: "ws://10.0.\($0 / 200).\($0 % 200 + 1):8188")
        }
        #expect(refusal(configuration).contains("at most"))
        configuration.janus.removeLast()
        try configuration.validate()
    }

    /// Why `configuration` is refused ("" when it is valid).
    private func refusal(_ configuration: ServerConfiguration) -> String {
        do throws(TokKitServerError) {
            try configuration.validate()
            return ""
        } catch {
            return "\(error)"
        }
    }

    @Test func commandLineInstancesShareTheSecrets() {
        let list = RoutedMediaConfiguration.list(urls: ["ws://a:1", "ws://b:2"], apiSecret: "s", adminKey: nil)
        #expect(list == [RoutedMediaConfiguration(url: "ws://a:1", apiSecret: "s"),
                         RoutedMediaConfiguration(url: "ws://b:2", apiSecret: "s")])
        #expect(RoutedMediaConfiguration.list(urls: [], apiSecret: "s", adminKey: "a").isEmpty)
    }

    /// `tokkit-server --janus URL --janus URL` starts (the option repeats; the instances are connected lazily).
    @Test func tokkitServerTakesRepeatedJanusOptions() async throws {
        let server = try await ServerProcess(["--janus", "ws://127.0.0.1:9", "--janus", "ws://127.0.0.1:10",
                                              "--janus-api-secret", "s"])
        #expect(server.port > 0)
        #expect(await server.stop() == 0)
    }
}
