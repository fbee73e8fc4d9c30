import Foundation
import Testing
@testable import TokKitJanus

/// What TokKitJanus makes of Janus's messages, without a Janus: typed errors for anything malformed, never a crash.
@Suite("Janus messages") struct JanusMessageTests {
    @Test(arguments: [
        "", "not json", "{", "[1,2,3]", "42", "\"janus\"", "{\"no\":\"janus\"}", "{\"janus\":7}",
        "{\"janus\":\"success\",\"session_id\":\"abc\"}", "{\"janus\":\"event\",\"sender\":-4}",
        "{\"janus\":\"ack\",\"transaction\":5}", "{\"janus\":\"success\",\"session_id\":1.5}",
    ])
    func framesThatAreNotJanusMessagesAreMalformed(_ text: String) {
        #expect(throws: JanusError.self) { try JanusIncoming(parsing: text) }
        do throws(JanusError) {
            _ = try JanusIncoming(parsing: text)
        } catch {
            guard case .malformedReply = error else { Issue.record("\(error)"); return }
        }
    }

    @Test func aWellFormedEventIsRead() throws {
        let text = """
            {"janus":"event","session_id":8205528814684944,"sender":609716456778127,"plugindata":{"plugin":\
            "janus.plugin.videoroom","data":{"videoroom":"event","room":42,"unpublished":3845080329063592}}}
            """
        let incoming = try JanusIncoming(parsing: text)
        #expect(incoming.kind == "event")
        #expect(incoming.sessionID == 8205528814684944)
        #expect(incoming.sender == 609716456778127)
        #expect(incoming.transaction == nil)
        #expect(VideoRoomEvent(try incoming.event()) == .unpublished(feed: 3845080329063592))
    }

    @Test func aPluginErrorIsTypedWithItsCode() throws {
        let text = """
            {"janus":"event","transaction":"t7","sender":1,"plugindata":{"plugin":"janus.plugin.videoroom",\
            "data":{"videoroom":"event","error_code":426,"error":"No such room (43)"}}}
            """
        #expect(throws: JanusError.plugin(code: 426, reason: "No such room (43)")) {
            try JanusPluginReply(try JanusIncoming(parsing: text))
        }
    }

    @Test func aCoreErrorIsTypedWithItsCode() throws {
        let incoming = try JanusIncoming(parsing: """
            {"janus":"error","transaction":"t10","error":{"code":457,"reason":"Unhandled request"}}
            """)
        #expect(incoming.error == .janus(code: 457, reason: "Unhandled request"))
        let broken = try JanusIncoming(parsing: "{\"janus\":\"error\",\"error\":{\"code\":\"x\"}}")
        guard case .malformedReply = broken.error else { Issue.record("\(broken.error)"); return }
    }

    @Test(arguments: [
        "{\"janus\":\"success\",\"transaction\":\"t\"}",  // no plugindata
        "{\"janus\":\"success\",\"plugindata\":{\"data\":[1]}}",  // data not an object
        "{\"janus\":\"event\",\"plugindata\":{\"data\":{\"videoroom\":\"event\",\"error_code\":\"bad\"}}}",
        "{\"janus\":\"event\",\"plugindata\":{\"data\":{}},\"jsep\":{\"type\":\"pranswer\",\"sdp\":\"v=0\"}}",
        "{\"janus\":\"event\",\"plugindata\":{\"data\":{}},\"jsep\":{\"type\":\"offer\"}}",
    ])
    func pluginRepliesWithoutWhatTheAPIPromisesAreMalformed(_ text: String) throws {
        let incoming = try JanusIncoming(parsing: text)
        do throws(JanusError) {
            _ = try JanusPluginReply(incoming)
            Issue.record("accepted \(text)")
        } catch {
            guard case .malformedReply = error else { Issue.record("\(error)"); return }
        }
    }

    @Test func coreEventsAreTyped() throws {
        func event(_ text: String) throws -> JanusEvent { try JanusIncoming(parsing: text).event() }
        #expect(try event("{\"janus\":\"webrtcup\",\"sender\":1}") == .webrtcUp)
        #expect(try event("{\"janus\":\"media\",\"sender\":1,\"mid\":\"1\",\"type\":\"video\",\"receiving\":true}")
                == .media(JanusMediaEvent(type: "video", mid: "1", receiving: true)))
        #expect(try event("{\"janus\":\"slowlink\",\"sender\":1,\"mid\":\"1\",\"media\":\"video\",\"uplink\":false,\"lost\":12}")
                == .slowLink(JanusSlowLink(mid: "1", media: "video", uplink: false, lost: 12)))
        #expect(try event("{\"janus\":\"hangup\",\"sender\":1,\"reason\":\"DTLS alert\"}") == .hangup(reason: "DTLS alert"))
        #expect(try event("{\"janus\":\"detached\",\"sender\":1}") == .detached)
        #expect(throws: JanusError.self) { try event("{\"janus\":\"media\",\"sender\":1,\"type\":\"video\"}") }
        #expect(throws: JanusError.self) { try event("{\"janus\":\"slowlink\",\"sender\":1}") }
        // A plugin event TokKit cannot read as VideoRoom's stays whole.
        let odd = try event("{\"janus\":\"event\",\"sender\":1,\"plugindata\":{\"data\":{\"videoroom\":\"talking\",\"id\":3}}}")
        #expect(VideoRoomEvent(odd) == .other(["videoroom": "talking", "id": 3]))
        let badFeeds = try event("{\"janus\":\"event\",\"sender\":1,\"plugindata\":{\"data\":{\"videoroom\":\"event\",\"publishers\":[{\"display\":\"no id\"}]}}}")
        guard case .other = VideoRoomEvent(badFeeds) else { Issue.record("\(VideoRoomEvent(badFeeds))"); return }
    }

    @Test func aSimulcastLayerChangeIsTyped() throws {
        func event(_ data: String) throws -> VideoRoomEvent {
            VideoRoomEvent(try JanusIncoming(parsing: """
                {"janus":"event","sender":1,"plugindata":{"plugin":"janus.plugin.videoroom","data":\(data)}}
                """).event())
        }
        #expect(try event("{\"videoroom\":\"event\",\"room\":7,\"mid\":\"1\",\"substream\":0}")
                == .substream(mid: "1", substream: 0))
        #expect(try event("{\"videoroom\":\"event\",\"room\":7,\"substream\":2}") == .substream(mid: nil, substream: 2))
        // A layer Janus does not have, or not a number: whole.
        for odd in ["{\"videoroom\":\"event\",\"mid\":\"1\",\"substream\":3}",
                    "{\"videoroom\":\"event\",\"mid\":\"1\",\"substream\":\"0\"}"] {
            guard case .other = try event(odd) else { Issue.record("\(try event(odd))"); continue }
        }
    }

    @Test func jsonTextEscapesAndRoundTrips() throws {
        let value: JanusJSON = [
            "sdp": "v=0\r\no=- 1 1 IN IP4 1.2.3.4\r\n", "quote": "a\"b\\c", "control": .string("\u{01}"),
            "n": 9_007_199_254_740_991, "x": 1.5, "ok": true, "none": nil, "list": [1, "two"],
        ]
        let text = value.jsonText
        #expect(!text.contains("\r") && !text.contains("\n"))
        #expect(try JanusJSON(parsing: text) == value)
        #expect(JanusJSON.id(UInt64.max) == .null)
    }

    @Test func transactionsAreRandomAndDistinct() {
        let ids = (0..<1_000).map { _ in JanusConnection.newTransaction() }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 16 })
    }
}

/// What JanusProcess generates and refuses, without starting Janus.
@Suite("Janus process configuration") struct JanusProcessConfigurationTests {
    @Test(arguments: ["127.0.0.1", "127.1.2.3", "0.0.0.0", "localhost", "198.18.1", "::1", "198.18.1.300"])
    func addressesJanusCannotUseForICEAreRefused(_ address: String) async {
        do throws(JanusError) {
            _ = try await JanusProcess.start(JanusProcessConfiguration(mediaAddress: address))
            Issue.record("started with \(address)")
        } catch {
            guard case .invalidConfiguration = error else { Issue.record("\(error)"); return }
        }
    }

    @Test func aMissingExecutableIsReportedAsNotInstalled() async {
        let configuration = JanusProcessConfiguration(mediaAddress: "198.18.1.2", executable: "/nonexistent/janus")
        await #expect(throws: JanusError.notInstalled("/nonexistent/janus")) {
            _ = try await JanusProcess.start(configuration)
        }
    }

    @Test func theGeneratedConfigurationHasOnlyWhatRoutedModeNeeds() throws {
        let c = JanusProcessConfiguration(mediaAddress: "198.18.4.2", port: 9000, apiSecret: "s3cret",
                                          videoRoomAdminKey: "k3y", rtpPortRange: 20000...20100)
        try c.validate()
        let files = c.files(directory: "/tmp/x", port: 9000)
        #expect(Set(files.keys) == ["janus.jcfg", "janus.transport.websockets.jcfg", "janus.plugin.videoroom.jcfg"])
        let janus = try #require(files["janus.jcfg"])
        for line in ["interface = \"198.18.4.2\"", "ice_enforce_list = \"198.18.4.2\"", "api_secret = \"s3cret\"",
                     "plugins_folder = \"/tmp/x/plugins\"", "transports_folder = \"/tmp/x/transports\"",
                     "events_folder = \"/tmp/x/events\"", "rtp_port_range = \"20000-20100\"",
                     "broadcast = false"] {
            #expect(janus.contains(line), "janus.jcfg lacks \(line)")
        }
        #expect(!janus.contains("admin_secret"))
        let ws = try #require(files["janus.transport.websockets.jcfg"])
        for line in ["ws_port = 9000", "ws_ip = \"198.18.4.2\"", "admin_ws = false", "admin_wss = false", "wss = false"] {
            #expect(ws.contains(line), "websockets lacks \(line)")
        }
        #expect(try #require(files["janus.plugin.videoroom.jcfg"]).contains("admin_key = \"k3y\""))
        // The library folder has the plugin and the transport (Debian's janus, installed by scripts/bootstrap).
        let folder = try JanusProcess.findLibraryFolder(nil)
        #expect(FileManager.default.fileExists(atPath: folder + "/plugins/libjanus_videoroom.so"))
    }
}
