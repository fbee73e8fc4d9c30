import Testing
@testable import TokKitServer

/// The recorder credential does not print: not alone, not in the request that carries it.
@Suite struct RecorderCredentialTests {
    @Test func printingARequestDoesNotShowTheSecret() {
        let secret = "s3cr3t-credential-value"
        let credential = RecorderCredential(field: ConnectionLimiter.recorderHeader, value: secret)
        let request = ArchiveRecordingRequest(
            serverURL: "http://127.0.0.1:1", apiKey: "key", sessionID: "session", token: "token", directory: "/tmp",
            outputMode: .individual, hasAudio: true, hasVideo: true, resolution: "640x480", credential: credential)
        var dumped = ""
        dump(request, to: &dumped)
        for text in ["\(credential)", String(reflecting: credential), "\(request)", String(reflecting: request), dumped] {
            #expect(!text.contains(secret), "\(text)")
        }
        #expect("\(credential)".contains(ConnectionLimiter.recorderHeader))
        #expect(credential.headerFields == [ConnectionLimiter.recorderHeader: secret])
    }
}
