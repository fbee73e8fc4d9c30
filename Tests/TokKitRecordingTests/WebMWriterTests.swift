import Foundation
import Testing
import TokKitRecording
import TokKitRecordingTestSupport

@Suite struct WebMWriterTests {
    /// Writes `video` and `audio` in time order (audio first at equal times), as a recorder would hand them over.
    static func writeInterleaved(_ writer: WebMWriter, video: [RecordingTestMedia.VideoFrameData],
                                 audio: [RecordingTestMedia.AudioPacketData]) throws {
        var a = 0
        for frame in video {
            while a < audio.count, audio[a].time <= frame.time {
                let outcome = try audio[a].bytes.withUnsafeBytes { try writer.writeAudio($0, timestamp: audio[a].time) }
                #expect(outcome == .written, "audio packet \(a)")
                a += 1
            }
            let outcome = try frame.bytes.withUnsafeBytes {
                try writer.writeVideo($0, isKeyFrame: frame.isKeyFrame, timestamp: frame.time)
            }
            #expect(outcome == .written, "video frame \(frame.index)")
        }
        for packet in audio[a...] {
            let outcome = try packet.bytes.withUnsafeBytes { try writer.writeAudio($0, timestamp: packet.time) }
            #expect(outcome == .written, "audio packet \(packet.index)")
        }
    }

    /// The acceptance case: 10 s of the numbered pattern at 640x480, 30 fps, and a tone in 20 ms Opus packets.
    @Test func tenSecondsOfVP8AndOpusProbeAndDecode() throws {
        let directory = try MediaTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("ten.webm").path
        let video = try RecordingTestMedia.encodeVideo(count: 300, width: 640, height: 480)
        let audio = try RecordingTestMedia.encodeTone(count: 500)
        #expect(video.count == 300)

        let clock = ContinuousClock()
        let writer = try WebMWriter(path: file, configuration: .init(video: .init(width: 640, height: 480),
                                                                      audio: .init()))
        let started = clock.now
        try Self.writeInterleaved(writer, video: video, audio: audio)
        try writer.close()
        let elapsed = clock.now - started
        let counters = writer.counters
        #expect(counters.videoFramesWritten == 300)
        #expect(counters.audioPacketsWritten == 500)
        #expect(counters.droppedTotal == 0)
        let payload = video.reduce(0) { $0 + $1.bytes.count } + audio.reduce(0) { $0 + $1.bytes.count }
        #expect(counters.payloadBytesWritten == payload)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        print("WebMWriter: 10 s (300 VP8 frames + 500 Opus packets, \(payload) payload bytes) written in \(elapsed), "
              + "file \(size) bytes (\(size - payload) bytes of container)")

        let probe = try MediaTools.probe(file)
        #expect(probe.video?.codecName == "vp8")
        #expect(probe.audio?.codecName == "opus")
        #expect(probe.video?.width == 640 && probe.video?.height == 480)
        #expect(probe.video?.frames == 300, "every frame decodes")
        #expect(probe.audio?.packets == 500)
        let duration = try #require(probe.duration, "the trailer wrote a duration")
        #expect(abs(duration - 10) <= 0.3, "duration \(duration) s")
        let decoded = try MediaTools.decode(file)
        #expect(decoded.status == 0)
        #expect(decoded.stderr.isEmpty, "ffmpeg decode errors: \(decoded.stderr)")

        // The picture: every 60th frame carries its own number, and its luma matches the source frame.
        let frames = try MediaTools.lumaFrames(file, width: 640, height: 480, every: 60)
        #expect(frames.count == 5)
        for (n, luma) in frames.enumerated() {
            let number = luma.withUnsafeBufferPointer { RecordingTestMedia.frameNumber(inLuma: $0, width: 640) }
            #expect(number == n * 60, "decoded frame \(n * 60) carries number \(number)")
            let psnr = LumaPSNR.decibels(luma, RecordingTestMedia.luma(index: number, width: 640, height: 480))
            #expect(psnr >= 30, "frame \(number): luma PSNR \(psnr) dB")
            print("frame \(number): luma PSNR \(String(format: "%.1f", psnr)) dB")
        }
    }

    @Test func audioOnlyAndVideoOnlyFiles() throws {
        let directory = try MediaTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let audioFile = directory.appendingPathComponent("audio.webm").path
        let videoFile = directory.appendingPathComponent("video.webm").path
        let audio = try RecordingTestMedia.encodeTone(count: 50)
        let video = try RecordingTestMedia.encodeVideo(count: 30, width: 160, height: 120)

        let audioWriter = try WebMWriter(path: audioFile, configuration: .init(audio: .init()))
        try Self.writeInterleaved(audioWriter, video: [], audio: audio)
        #expect(throws: RecordingError.noSuchTrack("video")) {
            try video[0].bytes.withUnsafeBytes { try audioWriter.writeVideo($0, isKeyFrame: true, timestamp: .zero) }
        }
        try audioWriter.close()
        let videoWriter = try WebMWriter(path: videoFile, configuration: .init(video: .init()))
        #expect(!videoWriter.hasWrittenHeader, "the header waits for the first key frame's size")
        try Self.writeInterleaved(videoWriter, video: video, audio: [])
        #expect(videoWriter.hasWrittenHeader)
        try videoWriter.close()

        let a = try MediaTools.probe(audioFile)
        #expect(a.streams.map(\.codecName) == ["opus"])
        #expect(a.audio?.packets == 50)
        let v = try MediaTools.probe(videoFile)
        #expect(v.streams.map(\.codecName) == ["vp8"])
        #expect(v.video?.width == 160 && v.video?.height == 120, "size from the key frame")
        #expect(v.video?.frames == 30)
        for file in [audioFile, videoFile] {
            let decoded = try MediaTools.decode(file)
            #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(file): \(decoded.stderr)")
        }
    }

    /// Audio that arrives before the first key frame (which gives the video size) is held, up to the limit, and
    /// written after the header.
    @Test func audioBeforeTheFirstKeyFrameIsHeldThenWritten() throws {
        let directory = try MediaTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("held.webm").path
        let audio = try RecordingTestMedia.encodeTone(count: 60)
        let video = try RecordingTestMedia.encodeVideo(count: 30, width: 160, height: 120)
        let writer = try WebMWriter(path: file, configuration: .init(video: .init(), audio: .init(),
                                                                      maximumPendingPackets: 25))
        var outcomes: [WebMWriter.Outcome] = []
        for packet in audio[0...30] {  // 0 ... 600 ms, all before the key frame
            outcomes.append(try packet.bytes.withUnsafeBytes { try writer.writeAudio($0, timestamp: packet.time) })
        }
        #expect(outcomes == Array(repeating: .pending, count: 25) + Array(repeating: .dropped(.pendingFull), count: 6))
        #expect(!writer.hasWrittenHeader)
        // The video starts at 600 ms (the key frame), then both go on together.
        let shifted = video.map { frame in
            var f = frame
            f.time += .milliseconds(600)
            return f
        }
        try Self.writeInterleaved(writer, video: shifted, audio: Array(audio[31...]))
        try writer.close()
        #expect(writer.counters.audioPacketsWritten == 25 + 29)
        #expect(writer.counters.dropped == [.pendingFull: 6])

        let probe = try MediaTools.probe(file)
        #expect(probe.video?.width == 160 && probe.video?.height == 120)
        #expect(probe.video?.frames == 30)
        #expect(probe.audio?.packets == 54)
        let decoded = try MediaTools.decode(file)
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "ffmpeg: \(decoded.stderr)")
    }

    @Test func opusHeadIsRFC7845() {
        let head = WebMWriter.opusHead(channels: 2, preSkip: 312)
        #expect(head.count == 19)
        #expect(Array(head[0..<8]) == Array("OpusHead".utf8))
        #expect(head[8] == 1, "version")
        #expect(head[9] == 2, "channels")
        #expect(head[10] == 0x38 && head[11] == 0x01, "pre-skip 312 little-endian")
        #expect(Array(head[12..<16]) == [0x80, 0xBB, 0x00, 0x00], "48000 little-endian")
        #expect(Array(head[16..<19]) == [0, 0, 0], "gain 0, mapping family 0")
    }
}
