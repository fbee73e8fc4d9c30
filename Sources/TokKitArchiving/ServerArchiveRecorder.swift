import Logging
import struct FoundationEssentials.URL
@_spi(Recording) import TokKit
import TokKitServer

/// The session server's recorder (``ArchiveRecorderFactory``): a ``SessionArchiver`` per archive, joining with the
/// hidden token the server gives and writing one WebM per stream into the archive's directory (individual mode).
/// Composed mode is refused with ``ArchiveRecorderError/unsupportedOutputMode(_:)`` until it exists.
///
/// `tokkit-server` wires it in (`TokKitServer(configuration:logger:archiveRecorder:)`). Immutable, `Sendable`.
public struct ServerArchiveRecorder: ArchiveRecorderFactory {
    /// How the recorder's media connections gather candidates.
    public var ice: ICEConfiguration
    /// The recorder's log.
    public var logger: Logger

    /// A recorder whose media connections use `ice` (every interface by default; tests on one machine use
    /// `.loopback`).
    public init(ice: ICEConfiguration = .allInterfaces, logger: Logger = Logger(label: "tokkit.archiver")) {
        self.ice = ice
        self.logger = logger
    }

    public func start(_ request: ArchiveRecordingRequest) async throws(ArchiveRecorderError) -> any ArchiveRecording {
        guard request.outputMode == .individual else { throw .unsupportedOutputMode(request.outputMode) }
        guard let url = URL(string: request.serverURL) else { throw .failed("bad server URL \(request.serverURL)") }
        do throws(SessionError) {
            let archiver = try await SessionArchiver.start(
                serverURL: url, apiKey: request.apiKey, sessionID: SessionID(request.sessionID), token: request.token,
                directory: request.directory, hasAudio: request.hasAudio, hasVideo: request.hasVideo, ice: ice,
                logger: logger)
            return Recording(archiver: archiver)
        } catch {
            throw .failed("\(error)")
        }
    }

    /// One archive's running ``SessionArchiver``.
    struct Recording: ArchiveRecording {
        let archiver: SessionArchiver

        func stop() async -> ArchiveRecordingResult {
            let files = await archiver.stop()
            return ArchiveRecordingResult(files: files.map { file in
                ArchiveRecordingResult.File(
                    streamID: file.streamID.rawValue, path: file.path, startOffset: file.startOffset,
                    failure: file.failure)
            })
        }
    }
}
