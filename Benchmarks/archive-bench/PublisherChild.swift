import Foundation
import Logging
import TokKit
import TokKitAudio
import TokKitTesting

/// The benchmark's publishers, in a process of their own so that their capture and VP8/Opus encoding do not count
/// in the recorder's CPU: `archive-bench --publish URL API_KEY SESSION_ID TOKEN...` connects one `Session` per
/// token on loopback, each publishing a 320x240 pattern at 30 fps and the process's 440 Hz tone, prints
/// `published <stream id>` per stream and stays until killed or until its standard input ends (the benchmark holds
/// it open: a benchmark that dies takes its publishers with it).
enum PublisherChild {
    static func run(_ arguments: [String]) async -> Never {
        Thread {
            var byte: UInt8 = 0
            while true {
                let n = read(0, &byte, 1)
                if n == 0 || (n < 0 && errno != EINTR) { exit(0) }
            }
        }.start()
        guard arguments.count >= 4, let url = URL(string: arguments[0]) else {
            FileHandle.standardError.write(Data("usage: archive-bench --publish URL API_KEY SESSION_ID TOKEN...\n".utf8))
            exit(2)
        }
        do {
            try AudioDeviceManager.setAudioDevice(ToneAudioDevice())
            var sessions: [Session] = []
            for token in arguments[3...] {
                var settings = SessionSettings()
                settings.logger.logLevel = .error
                let session = Session(apiKey: arguments[1], sessionID: SessionID(arguments[2]), serverURL: url,
                                      settings: settings)
                session.mediaNegotiator = WebRTCNegotiator(ice: .loopback)
                try await session.connect(token: token)
                let publisher = Publisher(name: "bench-\(sessions.count)",
                                          videoCapture: PatternCapturer(width: 320, height: 240, framesPerSecond: 30))
                try await session.publish(publisher)
                sessions.append(session)
                FileHandle.standardOutput.write(Data("published \(publisher.stream?.streamID.rawValue ?? "?")\n".utf8))
            }
            while true { try await Task.sleep(for: .seconds(3_600)) }
        } catch {
            FileHandle.standardError.write(Data("archive-bench --publish: \(error)\n".utf8))
            exit(1)
        }
    }
}
