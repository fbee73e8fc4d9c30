// signaling-chat: the tutorial's "signaling" chapter as a terminal chat.
//
//   swift run signaling-chat --name Alice --embed            # starts a server in process and prints its URL
//   swift run signaling-chat --name Bob --server http://127.0.0.1:PORT
//
// Each instance asks the server's tutorial web service (GET /session) for credentials, connects, and sends every
// line typed as a "chat" signal to everyone; lines from the others are printed with their sender's name.
// Ctrl-D leaves the session.
//
// The chat format is the one the server's browser page speaks too (ChatMessage, Docs/Browser.md "Chat"): the
// signal's data is {"name","text"} as JSON, and data that is not is a plain-text line from an older peer, printed
// as it is. So a browser on the server's page (http://127.0.0.1:PORT/, the same room "session") chats with it.

import ArgumentParser
import ExampleSupport
import Foundation
import FoundationNetworking
import Logging
import TokKit
import TokKitMedia
import TokKitServer

@main
struct SignalingChat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signaling-chat", abstract: "A terminal chat over TokKit signals.")

    @Option(help: "Your name, shown to the others.")
    var name: String

    @Option(help: "The server, e.g. http://127.0.0.1:8080 (its tutorial service must be on).")
    var server: String?

    @Flag(help: "Start a server in this process instead (others join with --server).")
    var embed = false

    @Option(help: "Port for the embedded server (0 picks a free one).")
    var port: Int = 0

    func run() async throws {
        var embedded: TokKitServer?
        let base: String
        if embed {
            var configuration = ServerConfiguration(
                apiKey: "chat", apiSecret: "chat-secret-\(UInt64.random(in: 0...UInt64.max))", port: port)
            configuration.quickStart = true
            var logger = Logger(label: "chat.server")
            logger.logLevel = .warning
            let s = try TokKitServer(configuration: configuration, logger: logger)
            let bound = try await s.start()
            embedded = s
            base = "http://127.0.0.1:\(bound)"
            print("* server running; others join with: swift run signaling-chat --name NAME --server \(base)")
        } else if let server {
            base = server
        } else {
            throw ValidationError("give --server URL or --embed")
        }

        guard let serverURL = URL(string: base) else { throw ValidationError("bad server URL \(base)") }
        let credentials = try await TutorialCredentials.fetch(from: base)
        var settings = SessionSettings()
        settings.logger.logLevel = .warning
        let session = Session(
            apiKey: credentials.apiKey, sessionID: SessionID(credentials.sessionID), serverURL: serverURL, settings: settings)
        let events = session.events
        try await session.connect(token: credentials.token)
        print("* connected as \(name); type a line and press enter (Ctrl-D to leave)")
        try await session.signal(type: ChatMessage.joinSignalType, data: name)

        let me = session.connection?.connectionID
        let printer = Task {
            var names: [ConnectionID: String] = [:]
            for await event in events {
                switch event {
                case .signalReceived(let type, let data, let connection):
                    // No sender: a signal the server's REST API sent on the project's behalf.
                    let from = connection?.connectionID
                    if let from, from == me { continue }
                    switch type {
                    case ChatMessage.joinSignalType:
                        if let from { names[from] = data }
                        print("* \(data) joined")
                    case ChatMessage.signalType:
                        let message = ChatMessage(signalData: data)
                        if let from, let name = message.name { names[from] = name }
                        // A plain-text line (an older peer) is shown as text, under the name it announced if any.
                        print("[\(message.name ?? from.flatMap { names[$0] ?? $0.rawValue } ?? "server")] \(message.text)")
                    default: continue
                    }
                case .connectionDestroyed(let c):
                    print("* \(names[c.connectionID] ?? "someone") left")
                case .reconnecting: print("* connection lost, reconnecting…")
                case .reconnected: print("* reconnected")
                case .disconnected: return
                default: continue
                }
            }
        }

        for await line in StandardInputLines.stream() {
            guard !line.isEmpty else { continue }
            do {
                try await session.signal(type: ChatMessage.signalType, data: ChatMessage(name: name, text: line).signalData)
            } catch {
                print("* not sent: \(error)")
            }
        }
        await session.disconnect()
        printer.cancel()
        await embedded?.stop()
    }
}

/// Lines of standard input, read on a thread of their own; the stream ends at end of file.
enum StandardInputLines {
    static func stream() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingOldest(256))
        _ = MediaThread(name: "stdin") { _ in
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }
        return stream
    }
}
