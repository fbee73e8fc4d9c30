import Logging
import struct FoundationEssentials.URL
@_spi(Recording) import TokKit
import TokKitServer

/// The session server's recorder (``ArchiveRecorderFactory``): per archive, joins with the hidden token the server
/// gives and writes into the archive's directory
/// - individual mode: a ``SessionArchiver``, one WebM per stream (`<stream id>.webm`);
/// - composed mode: a ``ComposedArchiver``, one WebM (`composed.webm`, reported under the stream name
///   ``composedStreamName``) with every stream's video in a grid at the archive's resolution and the audio mixed.
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

    /// The name a composed archive's one file is listed under (in place of a stream ID).
    public static let composedStreamName = "composed"
    /// A composed archive's file name in the archive's directory.
    public static let composedFileName = "composed.webm"

    public func start(_ request: ArchiveRecordingRequest) async throws(ArchiveRecorderError) -> any ArchiveRecording {
        guard let url = URL(string: request.serverURL) else { throw .failed("bad server URL \(request.serverURL)") }
        if request.outputMode == .composed { return try await startComposed(request, url: url) }
        do throws(SessionError) {
            let archiver = try await SessionArchiver.start(
                serverURL: url, apiKey: request.apiKey, sessionID: SessionID(request.sessionID), token: request.token,
                directory: request.directory, hasAudio: request.hasAudio, hasVideo: request.hasVideo, ice: ice,
                credential: request.credential, logger: logger)
            return Recording(archiver: archiver)
        } catch {
            throw .failed("\(error)")
        }
    }

    private func startComposed(_ request: ArchiveRecordingRequest, url: URL) async throws(ArchiveRecorderError)
        -> ComposedRecording {
        do throws(ComposedArchiveError) {
            let settings = try ComposedArchiveSettings(
                resolution: request.resolution, hasAudio: request.hasAudio, hasVideo: request.hasVideo)
            let archiver = try await ComposedArchiver.start(
                serverURL: url, apiKey: request.apiKey, sessionID: SessionID(request.sessionID), token: request.token,
                path: "\(request.directory)/\(Self.composedFileName)", settings: settings, ice: ice,
                credential: request.credential, logger: logger)
            return ComposedRecording(archiver: archiver)
        } catch {
            throw .failed("\(error)")
        }
    }

    /// One archive's running ``ComposedArchiver``.
    struct ComposedRecording: ArchiveRecording {
        let archiver: ComposedArchiver

        func end(at instant: ContinuousClock.Instant) { archiver.end(at: instant) }

        func stop() async -> ArchiveRecordingResult {
            let result = await archiver.stop()
            // No offset (nothing recorded) unless some stream's picture or sound reached the file.
            let recorded = result.audiblePeriods > 0 || result.streams.contains { $0.firstPicture != nil }
            return ArchiveRecordingResult(
                files: [ArchiveRecordingResult.File(
                    streamID: ServerArchiveRecorder.composedStreamName, path: result.path,
                    startOffset: recorded ? .zero : nil, failure: result.failure)],
                duration: result.duration)
        }
    }

    /// One archive's running ``SessionArchiver``.
    struct Recording: ArchiveRecording {
        let archiver: SessionArchiver

        func end(at instant: ContinuousClock.Instant) { archiver.end(at: instant) }

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
