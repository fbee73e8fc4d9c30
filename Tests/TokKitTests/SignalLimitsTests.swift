import Testing
import TokKitProtocol

@testable import TokKit

@Suite struct SignalLimitsTests {
    @Test func acceptsTheFullAlphabetAndLimits() throws {
        try SignalLimits.validate(type: "", data: "")
        try SignalLimits.validate(type: "AZaz09-_~", data: "hello")
        try SignalLimits.validate(type: String(repeating: "t", count: 128), data: String(repeating: "d", count: 8192))
    }

    @Test func typeTooLongIs1461() {
        #expect(throws: SessionError.self) {
            try SignalLimits.validate(type: String(repeating: "t", count: 129), data: "")
        }
        do {
            try SignalLimits.validate(type: String(repeating: "t", count: 129), data: "")
        } catch {
            #expect(error.code == 1461)
        }
    }

    @Test(arguments: ["a b", "chat!", "é", "a/b", "a.b", "\u{0}", "日本"])
    func forbiddenCharacterIs1461(_ type: String) {
        do {
            try SignalLimits.validate(type: type, data: "")
            Issue.record("accepted \(type)")
        } catch {
            #expect(error.code == 1461)
        }
    }

    @Test func dataTooLongIs1413() {
        do {
            try SignalLimits.validate(type: "t", data: String(repeating: "d", count: 8193))
            Issue.record("accepted 8193 bytes")
        } catch {
            #expect(error.code == 1413)
        }
        // Counted in UTF-8 bytes: 4097 two-byte characters are 8194 bytes.
        do {
            try SignalLimits.validate(type: "t", data: String(repeating: "é", count: 4097))
            Issue.record("accepted 8194 bytes")
        } catch {
            #expect(error.code == 1413)
        }
    }

    /// Same verdicts as the protocol's own validation (which the server runs).
    @Test(arguments: ["", "ok", "bad type", String(repeating: "x", count: 128), String(repeating: "x", count: 129), "ü"])
    func agreesWithTheProtocol(_ type: String) {
        var ours: Int?, theirs: Int?
        do { try SignalLimits.validate(type: type, data: "") } catch { ours = error.code }
        do { try Validation.signalType(type) } catch { theirs = error.code.rawValue }
        #expect(ours == theirs)
        #expect(SignalLimits.maxTypeLength == ProtocolLimits.maxSignalTypeLength)
        #expect(SignalLimits.maxDataBytes == ProtocolLimits.maxSignalDataBytes)
    }
}
