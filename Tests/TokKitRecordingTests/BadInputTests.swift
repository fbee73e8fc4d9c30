import Foundation
import Glibc
import Testing
import TokKitRecording
import TokKitRecordingTestSupport

/// Input a recording must survive: typed errors for what cannot work, counted drops for bad media.
@Suite struct BadInputTests {
    @Test func aPathThatCannotBeOpenedIsATypedError() throws {
        do {
            _ = try WebMWriter(path: "/nonexistent-\(UUID().uuidString)/x.webm", configuration: .init(audio: .init()))
            Issue.record("opened a file in a directory that does not exist")
        } catch let error {
            guard case let .libav(operation, code, message) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(operation == "avio_open")
            #expect(code == -ENOENT)
            #expect(message.contains("No such file"), "\(message)")
        }
    }

    @Test func invalidConfigurationsAreRejected() {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("never-\(UUID()).webm").path
        for configuration in [WebMWriter.Configuration(),
                              .init(video: .init(width: 640, height: nil)),
                              .init(video: .init(width: 1, height: 1)),
                              .init(audio: .init(channels: 3)),
                              .init(audio: .init(), clusterDuration: .zero)] {
            #expect(throws: RecordingError.self) { try WebMWriter(path: path, configuration: configuration) }
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func badFramesAreDroppedAndCountedAndTheFileStaysDecodable() throws {
        let directory = try MediaTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bad.webm").path
        let video = try RecordingTestMedia.encodeVideo(count: 10, width: 160, height: 120)
        let audio = try RecordingTestMedia.encodeTone(count: 10)
        let writer = try WebMWriter(path: file, configuration: .init(
            video: .init(width: 160, height: 120), audio: .init(), maximumFrameSize: 64 * 1024))
        func v(_ i: Int, at ms: Int64, key: Bool? = nil) throws -> WebMWriter.Outcome {
            try video[i].bytes.withUnsafeBytes {
                try writer.writeVideo($0, isKeyFrame: key ?? video[i].isKeyFrame, timestamp: .milliseconds(ms))
            }
        }
        func a(_ i: Int, at ms: Int64) throws -> WebMWriter.Outcome {
            try audio[i].bytes.withUnsafeBytes { try writer.writeAudio($0, timestamp: .milliseconds(ms)) }
        }

        #expect(try v(1, at: 0) == .dropped(.beforeKeyFrame), "a delta frame before the first key frame")
        #expect(try v(0, at: 0) == .written)
        #expect(try v(1, at: 33) == .written)
        #expect(try v(2, at: 20) == .dropped(.backwards), "back in time")
        #expect(try v(2, at: -5) == .dropped(.backwards), "before the archive's start")
        #expect(try writer.writeVideo(UnsafeRawBufferPointer(start: nil, count: 0), isKeyFrame: false,
                                      timestamp: .milliseconds(66)) == .dropped(.empty))
        let huge = [UInt8](repeating: 0x55, count: 64 * 1024 + 1)
        #expect(try huge.withUnsafeBytes { try writer.writeVideo($0, isKeyFrame: false, timestamp: .milliseconds(66)) }
                == .dropped(.oversized))
        #expect(try v(2, at: 66) == .written)

        #expect(try a(0, at: 0) == .written)
        #expect(try a(1, at: 20) == .written)
        #expect(try a(2, at: 10) == .dropped(.backwards))
        let invalidOpus: [UInt8] = [0x03, 0xFF]  // code 3 with a frame count of 63: more than 120 ms
        #expect(try invalidOpus.withUnsafeBytes { try writer.writeAudio($0, timestamp: .milliseconds(40)) }
                == .dropped(.invalid))
        #expect(try a(2, at: 40) == .written)
        for i in 3..<10 { #expect(try v(i, at: Int64(33 * i)) == .written) }

        let counters = writer.counters
        #expect(counters.videoFramesWritten == 10)
        #expect(counters.audioPacketsWritten == 3)
        #expect(counters.dropped == [.beforeKeyFrame: 1, .backwards: 3, .empty: 1, .oversized: 1, .invalid: 1])
        try writer.close()
        #expect(throws: RecordingError.closed) { try a(3, at: 60) }
        try writer.close()  // a second close does nothing

        let probe = try MediaTools.probe(file)
        #expect(probe.video?.frames == 10)
        #expect(probe.audio?.packets == 3)
        let decoded = try MediaTools.decode(file)
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "ffmpeg: \(decoded.stderr)")
    }

    /// Video frames whose times fall in one millisecond (a capturer catching up) are all written, each 1 ms after
    /// the previous one: ffmpeg reads strictly increasing times and decodes every frame without a complaint.
    @Test func videoFramesInOneMillisecondAreWrittenOneMillisecondApart() throws {
        let directory = try MediaTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("burst.webm").path
        let video = try RecordingTestMedia.encodeVideo(count: 6, width: 160, height: 120)
        let writer = try WebMWriter(path: file, configuration: .init(video: .init(width: 160, height: 120)))
        for (i, ms) in [0, 0, 0, 33, 33, 34].enumerated() {
            let outcome = try video[i].bytes.withUnsafeBytes {
                try writer.writeVideo($0, isKeyFrame: video[i].isKeyFrame, timestamp: .milliseconds(Int64(ms)))
            }
            #expect(outcome == .written, "frame \(i) at \(ms) ms")
        }
        #expect(writer.counters.videoFramesWritten == 6 && writer.counters.videoFramesDelayed == 4)
        try writer.close()
        let times = try MediaTools.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries",
                                                   "packet=pts_time", "-of", "csv=p=0", file])
        #expect(String(decoding: times.stdout, as: UTF8.self).split(separator: "\n").compactMap { Double($0) }
                == [0, 0.001, 0.002, 0.033, 0.034, 0.035])
        #expect(try MediaTools.probe(file).video?.frames == 6)
        let decoded = try MediaTools.decode(file)
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "ffmpeg: \(decoded.stderr)")
    }

    @Test func garbagePacketsIntoARecorderAreCountedNotFatal() throws {
        let directory = try MediaTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let writer = try WebMWriter(path: directory.appendingPathComponent("g.webm").path,
                                    configuration: .init(video: .init(), audio: .init()))
        let video = try RTPStreamRecorder(media: .vp8, writer: writer, startOffset: .zero)
        let audio = try RTPStreamRecorder(media: .opus, writer: writer, startOffset: .zero)
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 11, 12, 13, 40, 1500] {
            for _ in 0..<50 {
                var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                if length > 0, Bool.random(using: &generator) { bytes[0] = 0x80 }  // a plausible RTP version byte
                try bytes.withUnsafeBytes { raw in
                    _ = try video.receive(packet: raw)
                    _ = try audio.receive(packet: raw)
                }
            }
        }
        #expect(video.counters.packetsReceived == 350)
        #expect(video.counters.packetsInvalid > 0)
        #expect(audio.counters.packetsInvalid > 0)
        #expect(writer.counters.videoFramesWritten == 0, "no garbage became a video frame")
        #expect(throws: RecordingError.noSuchTrack("audio")) {
            try RTPStreamRecorder(media: .opus, writer: WebMWriter(
                path: directory.appendingPathComponent("v.webm").path, configuration: .init(video: .init())),
                startOffset: .zero)
        }
        try writer.close()
    }
}
