// tokkit-archive-test-publisher URL API_KEY SESSION_ID TOKEN FREQUENCY Y U V SECONDS [numbered]: connects to the session on
// loopback and publishes a 320x240 solid colour (Y, U, V) with a frame counter and a FREQUENCY Hz tone (its own
// process, so its own audio device and tone), prints `published <stream id>`, stays SECONDS, then unpublishes and
// leaves. ComposedArchiverTests runs it as a second publisher whose tone differs from the test process's. With an
// eleventh argument `numbered`, the picture is RecordingTestMedia's numbered pattern instead of the colour
// (ArchiveQualityTests: PSNR of every recorded frame).
import Foundation
import TokKit
import TokKitArchivingTestSupport
import TokKitAudio
import TokKitMedia
import TokKitRecordingTestSupport

let arguments = CommandLine.arguments
guard arguments.count == 10 || (arguments.count == 11 && arguments[10] == "numbered"), let url = URL(string: arguments[1]), let frequency = Double(arguments[5]),
      let y = UInt8(arguments[6]), let u = UInt8(arguments[7]), let v = UInt8(arguments[8]),
      let seconds = Double(arguments[9]), seconds > 0
else {
    FileHandle.standardError.write(Data("usage: tokkit-archive-test-publisher URL API_KEY SESSION_ID TOKEN FREQUENCY Y U V SECONDS [numbered]\n".utf8))
    exit(2)
}
do {
    try AudioDeviceManager.setAudioDevice(ToneAudioDevice(frequency: frequency))
    let session = Session(apiKey: arguments[2], sessionID: SessionID(arguments[3]), serverURL: url)
    session.mediaNegotiator = WebRTCNegotiator(ice: .loopback)
    try await session.connect(token: arguments[4])
    let capture: any VideoCapture = arguments.count == 11
        ? NumberedPatternCapturer(width: 320, height: 240)
        : ColourCapturer(width: 320, height: 240, colour: (y, u, v))
    let publisher = Publisher(name: "helper", videoCapture: capture)
    try await session.publish(publisher)
    FileHandle.standardOutput.write(Data("published \(publisher.stream?.streamID.rawValue ?? "?")\n".utf8))
    try await Task.sleep(for: .seconds(seconds))
    try await session.unpublish(publisher)
    await session.disconnect()
} catch {
    FileHandle.standardError.write(Data("tokkit-archive-test-publisher: \(error)\n".utf8))
    exit(1)
}
