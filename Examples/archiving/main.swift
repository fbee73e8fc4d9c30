// archiving: the tutorial's archiving chapter. Connect, publish, record the session to an archive through the
// tutorial web service's archive calls (Docs/Protocol.md 5.2 and 5.7), stop it, wait until it is available and
// download it.
//
//     swift run archiving [--server URL] [--seconds N] [--composed] [--output PATH]
//
// Alone (no --server) the example's embedded server records into <temporary directory>/tokkit-example-archives.
// With --server, the server must run with quick start and an archive directory (tokkit-server --quick-start
// --archive-directory DIR). Its last line is `archive <id> available <path> <duration> s`.
import ExampleHelp
import ExampleSupport
import Foundation
import FoundationNetworking
import TokKit
import TokKitCapture

/// The fields of an archive (Docs/Protocol.md 5.7) the example reads.
struct Archive: Decodable {
    var id: String
    var status: String
    var duration: Double
    var reason: String?
    /// A signed download link (a path on the server) once available.
    var url: String?
}

/// The tutorial web service's archive calls (quick start: no credentials), on the server at `base`.
struct ArchiveCalls {
    let base: URL

    /// `POST /start/{sessionId}`.
    func start(sessionID: String, composed: Bool) async throws -> Archive {
        let body = composed ? #"{"name":"archiving example","outputMode":"composed"}"# : #"{"name":"archiving example"}"#
        return try await call("POST", "start/\(sessionID)", body: Data(body.utf8))
    }

    /// `POST /stop/{archiveId}`.
    func stop(_ id: String) async throws -> Archive { try await call("POST", "stop/\(id)") }

    /// `GET /archive/{archiveId}` until it is available (at most `timeout`; a call refused for its rate is tried
    /// again a second later).
    func waitUntilAvailable(_ id: String, timeout: Duration = .seconds(60)) async throws -> Archive {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let archive: Archive
            do {
                archive = try await call("GET", "archive/\(id)")
            } catch let error as CallError where error.status == 429 {
                try await Task.sleep(for: .seconds(1))
                continue
            }
            switch archive.status {
            case "available": return archive
            case "failed", "deleted": throw ExampleError("archive \(id) is \(archive.status): \(archive.reason ?? "?")")
            default: try await Task.sleep(for: .seconds(1))
            }
        }
        throw ExampleError("archive \(id) was not available within \(timeout)")
    }

    /// Downloads `link` (a path on the server) into `path`.
    func download(_ link: String, to path: String) async throws {
        guard let url = URL(string: link, relativeTo: base) else { throw ExampleError("bad download link \(link)") }
        let (data, response) = try await URLSession.shared.data(from: url)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw ExampleError("download of \(link) answered \(String(decoding: data.prefix(300), as: UTF8.self))")
        }
        try data.write(to: URL(fileURLWithPath: path))
    }

    struct CallError: Error, CustomStringConvertible {
        var status: Int
        var description: String
    }

    private func call(_ method: String, _ path: String, body: Data? = nil) async throws -> Archive {
        var request = URLRequest(url: base.appendingPathComponent(path))
        request.httpMethod = method
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            throw CallError(status: status, description: "\(method) /\(path) answered \(status): "
                            + String(decoding: data.prefix(300), as: UTF8.self))
        }
        return try JSONDecoder().decode(Archive.self, from: data)
    }
}

ExampleUsage("""
    usage: archiving [--server URL] [--seconds N] [--composed] [--output PATH]

    Connects to a session, publishes a noise camera, starts an archive of the session, stops it after --seconds,
    waits until it is available and downloads it; prints `archive <id> available <path> <duration> s`.

    \(ExampleSession.optionsHelp)
          --composed     record one composed file (every stream in a grid, audio mixed) instead of one per stream
          --output PATH  where to write the download (default archive-<id>.webm in the working directory)
    """).answerHelp()

let seconds = ExampleSession.seconds()
let composed = CommandLine.arguments.contains("--composed")
let output = ExampleSession.option("--output")
await ExampleSession.run("archiving") { example in
    let publisher = Publisher(name: "archiving", videoCapture: NoiseCapturer(width: 640, height: 480, framesPerSecond: 30))
    try await example.session.publish(publisher)
    let deadline = ContinuousClock.now + .seconds(10)
    while publisher.stream == nil && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    guard let stream = publisher.stream else { throw ExampleError("our stream was not created within 10 s") }
    print("* publishing stream \(stream.streamID)")

    let calls = ArchiveCalls(base: example.serverURL)
    let started = try await calls.start(sessionID: example.sessionID.rawValue, composed: composed)
    print("* archive \(started.id) \(started.status)")
    try await Task.sleep(for: .seconds(seconds))
    let stopped = try await calls.stop(started.id)
    print("* archive \(stopped.id) \(stopped.status)")
    let archive = try await calls.waitUntilAvailable(started.id)
    guard let link = archive.url else { throw ExampleError("archive \(archive.id) is available but has no file") }
    let path = URL(fileURLWithPath: output ?? "archive-\(archive.id).webm").standardizedFileURL.path
    try await calls.download(link, to: path)
    try await example.session.unpublish(publisher)
    print("archive \(archive.id) available \(path) \(String(format: "%.1f", archive.duration)) s")
}
