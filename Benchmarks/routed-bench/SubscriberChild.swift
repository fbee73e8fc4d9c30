import Dispatch
import Foundation
import Logging
import Synchronization
import TokKit
import TokKitAudio
import TokKitMedia

/// One subscriber of the benchmark, in a lab host of its own: `routed-bench --subscriber URL API_KEY SESSION_ID
/// TOKEN SOURCE_WIDTH SOURCE_HEIGHT` joins the session, subscribes to every stream with a ``StampReader`` and writes
/// on stdout (monotonic nanoseconds, the clock every process of the machine shares):
///
///     joining <ns>                      before connecting
///     first <ns>                        the first frame rendered
///     frames <number>:<ns> …            every 250 ms, the frames rendered since (nothing if none)
///     failed <message>                  connecting or subscribing failed (then it exits 1)
///
/// It leaves (unsubscribe, disconnect, exit 0) when its standard input ends, and exits by itself after 15 minutes.
enum SubscriberChild {
    static func run(_ arguments: [String]) async -> Never {
        guard arguments.count >= 6, let url = URL(string: arguments[0]), let sourceWidth = Int(arguments[4]),
              let sourceHeight = Int(arguments[5]), sourceWidth >= 64, sourceHeight >= 64 else {
            FileHandle.standardError.write(Data(
                "usage: routed-bench --subscriber URL API_KEY SESSION_ID TOKEN SOURCE_WIDTH SOURCE_HEIGHT\n".utf8))
            exit(2)
        }
        let watchdog = DispatchSource.makeTimerSource(queue: .global())
        watchdog.schedule(deadline: .now() + .seconds(900))
        watchdog.setEventHandler { exit(3) }
        watchdog.resume()

        let reader = StampReader(sourceWidth: sourceWidth, sourceHeight: sourceHeight)
        let watcher = Watcher(reader: reader)
        do {
            try AudioDeviceManager.setAudioDevice(ToneAudioDevice())
            var settings = SessionSettings()
            settings.logger.logLevel = .error
            let session = Session(apiKey: arguments[1], sessionID: SessionID(arguments[2]), serverURL: url,
                                  delegate: watcher, settings: settings)
            write("joining \(MonotonicClock.now().nanoseconds)")
            try await session.connect(token: arguments[3])
            // Stdin's end: leave, within a few seconds whatever the server does.
            Thread.detachNewThread {
                var byte: UInt8 = 0
                while true {
                    let n = read(0, &byte, 1)
                    if n == 0 || (n < 0 && errno != EINTR) { break }
                }
                DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(5)) { exit(0) }
                Task {
                    await session.disconnect()
                    exit(0)
                }
            }
            var reportedFirst = false
            // The loop uses the watchdog and the watcher (which the session holds weakly): both live as long as it.
            while !watchdog.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                if !reportedFirst, let first = watcher.reader.firstFrame {
                    write("first \(first.nanoseconds)")
                    reportedFirst = true
                }
                let (rendered, _) = watcher.reader.drain()
                if !rendered.isEmpty {
                    write("frames " + rendered.map { "\($0.number):\($0.at.nanoseconds)" }.joined(separator: " "))
                }
            }
            exit(0)
        } catch {
            write("failed \(error)")
            exit(1)
        }
    }

    /// One line on stdout, written at once (write(2): no stdio buffer).
    static func write(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Subscribes to every stream that appears, rendering into the one reader (the benchmark publishes one).
    final class Watcher: SessionDelegate, SubscriberDelegate {
        let reader: StampReader
        let subscribers = Mutex<[Subscriber]>([])
        init(reader: StampReader) { self.reader = reader }

        func session(_ session: Session, streamCreated stream: SessionStream) {
            let subscriber = Subscriber(stream: stream, videoRender: reader, delegate: self)
            subscribers.withLock { $0.append(subscriber) }
            Task {
                do throws(SessionError) { try await session.subscribe(subscriber) } catch {
                    SubscriberChild.write("failed subscribing: \(error)")
                    exit(1)
                }
            }
        }
        func session(_ session: Session, didFailWithError error: SessionError) {
            SubscriberChild.write("failed \(error)")
            exit(1)
        }
        func subscriber(_ subscriber: Subscriber, didFailWithError error: SessionError) {
            SubscriberChild.write("failed subscriber: \(error)")
            exit(1)
        }
    }
}
