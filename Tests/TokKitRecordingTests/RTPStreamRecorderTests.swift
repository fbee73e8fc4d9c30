import Foundation
import Testing
import TokKitRTP
import TokKitRecording
import TokKitRecordingTestSupport

/// Recording through the RTP path: TokKit's own packetizer and RTP header writer make the packets, the network
/// is simulated (reordering, duplicates, a loss), the recorders write the file, ffmpeg judges it.
@Suite struct RTPStreamRecorderTests {
    struct Packet {
        var bytes: [UInt8]
        var time: Duration
        var frame: Int
    }

    /// Packetizes `video` (90 kHz timestamps from `timestampBase`, sequence numbers from `sequenceBase`, small
    /// payloads so that every frame is several packets).
    static func videoPackets(_ video: [RecordingTestMedia.VideoFrameData], timestampBase: UInt32,
                             sequenceBase: UInt16) throws -> [Packet] {
        let packetizer = try VP8Packetizer(maximumPayloadSize: 200)
        var header = RTPHeader(payloadType: 96, sequenceNumber: sequenceBase, timestamp: 0, ssrc: 0x1234_5678)
        var buffer = [UInt8](repeating: 0, count: 1500)
        var out: [Packet] = []
        for frame in video {
            header.timestamp = timestampBase &+ UInt32(3000 * frame.index)
            _ = try frame.bytes.withUnsafeBytes { bytes in
                try packetizer.packetize(bytes) { (payload, marker) throws in
                    header.marker = marker
                    let length = try buffer.withUnsafeMutableBytes { target in
                        try header.write(payload: payload, into: target)
                    }
                    out.append(Packet(bytes: Array(buffer[0..<length]), time: frame.time, frame: frame.index))
                    header.sequenceNumber &+= 1
                }
            }
        }
        return out
    }

    static func audioPackets(_ audio: [RecordingTestMedia.AudioPacketData], timestampBase: UInt32,
                             sequenceBase: UInt16) throws -> [Packet] {
        var header = RTPHeader(marker: false, payloadType: 111, sequenceNumber: sequenceBase, timestamp: 0, ssrc: 0x9ABC)
        var buffer = [UInt8](repeating: 0, count: 1500)
        return try audio.map { packet in
            header.timestamp = timestampBase &+ UInt32(960 * packet.index)
            header.sequenceNumber = sequenceBase &+ UInt16(packet.index)
            let length = try packet.bytes.withUnsafeBytes { payload in
                try buffer.withUnsafeMutableBytes { try header.write(payload: payload, into: $0) }
            }
            return Packet(bytes: Array(buffer[0..<length]), time: packet.time, frame: packet.index)
        }
    }

    @Test func recordsThroughReorderingDuplicatesAndALoss() throws {
        let directory = try MediaTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("rtp.webm").path
        // 3 s: key frames at 0, 30 and 60; the video clock wraps after about 22 frames, the sequence numbers
        // after 36 packets, the audio clock after about 17 packets.
        let video = try RecordingTestMedia.encodeVideo(count: 90, width: 320, height: 240, keyFrames: [30, 60])
        let audio = try RecordingTestMedia.encodeTone(count: 150)
        var videoPackets = try Self.videoPackets(video, timestampBase: 0xFFFF_0000, sequenceBase: 65_500)
        var audioPackets = try Self.audioPackets(audio, timestampBase: 0xFFFF_C000, sequenceBase: 65_530)

        // The network: swap neighbours (inside a frame and across frames), duplicate, lose one packet of frame 45.
        #expect(videoPackets.filter { $0.frame == 45 }.count >= 2, "frame 45 spans several packets")
        for i in [5, 17, 40, 41 + 60, 200] where i + 1 < videoPackets.count { videoPackets.swapAt(i, i + 1) }
        for i in [3, 50, 150] { videoPackets.insert(videoPackets[i], at: min(videoPackets.count, i + 4)) }
        let lost = try #require(videoPackets.lastIndex { $0.frame == 45 })
        videoPackets.remove(at: lost - 1)
        audioPackets.insert(audioPackets[10], at: 11)  // duplicate
        audioPackets.swapAt(21, 22)  // packet 20 arrives after 21: placed by the reorder window
        audioPackets.remove(at: 41)  // packet 40 lost

        let writer = try WebMWriter(path: file, configuration: .init(video: .init(), audio: .init()))
        let videoRecorder = try RTPStreamRecorder(media: .vp8, writer: writer, startOffset: .zero)
        let audioRecorder = try RTPStreamRecorder(media: .opus, writer: writer, startOffset: .zero)
        var keyFrameRequests = 0
        var a = 0
        let clock = ContinuousClock()
        var busy = Duration.zero
        for packet in videoPackets {
            while a < audioPackets.count, audioPackets[a].time <= packet.time {
                let started = clock.now
                try audioPackets[a].bytes.withUnsafeBytes { _ = try audioRecorder.receive(packet: $0) }
                busy += clock.now - started
                a += 1
            }
            let started = clock.now
            if try packet.bytes.withUnsafeBytes({ try videoRecorder.receive(packet: $0) }) { keyFrameRequests += 1 }
            busy += clock.now - started
        }
        for packet in audioPackets[a...] {
            try packet.bytes.withUnsafeBytes { _ = try audioRecorder.receive(packet: $0) }
        }
        try audioRecorder.flush()
        try writer.close()
        print("RTPStreamRecorder: 3 s of 320x240 VP8 + Opus (\(videoPackets.count + audioPackets.count) packets) "
              + "recorded in \(busy) of CPU time in receive calls (debug build)")

        #expect(keyFrameRequests >= 1, "the loss asked for a key frame")
        #expect(videoRecorder.counters.packetsInvalid == 0)
        let assembler = try #require(videoRecorder.assemblerCounters)
        #expect(assembler.packetsDuplicate + assembler.packetsLate == 3, "duplicates, found in or after the window")
        #expect(assembler.framesLost == 1)
        // Frame 45 is lost, 46-59 cannot be decoded without it and are dropped until the key frame at 60.
        #expect(writer.counters.videoFramesWritten == 75)
        #expect(writer.counters.audioPacketsWritten == 149, "all but the lost one")
        #expect(audioRecorder.timelineCounters.droppedNotAfterPrevious == 1, "the duplicate")
        #expect(audioRecorder.reorderCounters?.gapsFilled == 1 && audioRecorder.reorderCounters?.gapsGivenUp == 1,
                "packet 20 placed, packet 40 given up: \(String(describing: audioRecorder.reorderCounters))")
        #expect(writer.counters.droppedTotal == 0)

        let probe = try MediaTools.probe(file)
        #expect(probe.video?.codecName == "vp8" && probe.audio?.codecName == "opus")
        #expect(probe.video?.width == 320 && probe.video?.height == 240)
        #expect(probe.video?.frames == 75)
        #expect(probe.audio?.packets == 149)
        let duration = try #require(probe.duration)
        #expect(abs(duration - 3) <= 0.3, "duration \(duration) s")
        let decoded = try MediaTools.decode(file)
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "ffmpeg: \(decoded.stderr)")

        // The frames that were written are the right ones: decoded frame 44 carries number 44, frame 45 (the
        // first after the gap) is the key frame 60, and their pictures match.
        let frames = try MediaTools.lumaFrames(file, width: 320, height: 240, every: 1)
        #expect(frames.count == 75)
        let numbers = frames.map { f in f.withUnsafeBufferPointer { RecordingTestMedia.frameNumber(inLuma: $0, width: 320) } }
        #expect(numbers == Array(0..<45) + Array(60..<90))
        for n in [0, 44, 45, 74] where n < frames.count {
            let psnr = LumaPSNR.decibels(frames[n], RecordingTestMedia.luma(index: numbers[n], width: 320, height: 240))
            #expect(psnr >= 30, "frame \(numbers[n]): \(psnr) dB")
        }
    }

    @Test func aStreamJoinedMidwayStartsAtItsFirstKeyFrame() throws {
        let directory = try MediaTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("late.webm").path
        let video = try RecordingTestMedia.encodeVideo(count: 45, width: 160, height: 120, keyFrames: [20])
        let packets = try Self.videoPackets(Array(video[5...]), timestampBase: 1000, sequenceBase: 7)
        let writer = try WebMWriter(path: file, configuration: .init(video: .init()))
        // The stream's first packet arrived 2 s after the archive started.
        let recorder = try RTPStreamRecorder(media: .vp8, writer: writer, startOffset: .seconds(2))
        var requests = 0
        for packet in packets {
            if try packet.bytes.withUnsafeBytes({ try recorder.receive(packet: $0) }) { requests += 1 }
        }
        try writer.close()
        #expect(requests >= 1, "delta frames first: a key frame is asked for")
        #expect(writer.counters.videoFramesWritten == 25, "frames 20-44")
        let probe = try MediaTools.probe(file)
        #expect(probe.video?.frames == 25)
        // Frame 5 arrived first (at 2 s); the key frame 20 is 0.5 s of RTP time later, the last frame 44 at 3.3 s.
        let duration = try #require(probe.duration)
        #expect(abs(duration - 3.33) <= 0.1, "duration \(duration) s")
        let decoded = try MediaTools.decode(file)
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "ffmpeg: \(decoded.stderr)")
    }

    /// The publisher restarts its stream halfway (a new SSRC, timestamps and sequence numbers elsewhere): the
    /// recorder places the new stream at its arrival instead of 11 hours away, and video waits for a key frame.
    @Test func aNewSSRCIsPlacedAtItsArrival() throws {
        let directory = try MediaTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("restart.webm").path
        let audio = try RecordingTestMedia.encodeTone(count: 100)
        let first = try Self.audioPackets(Array(audio[0..<50]), timestampBase: 1_000, sequenceBase: 10)
        var second = try Self.audioPackets(Array(audio[50...]), timestampBase: 0x7000_0000, sequenceBase: 40_000)
        for i in second.indices { second[i].bytes.replaceSubrange(8..<12, with: [0xDE, 0xAD, 0xBE, 0xEF]) }
        let video = try RecordingTestMedia.encodeVideo(count: 20, width: 160, height: 120, keyFrames: [10])
        let videoBefore = try Self.videoPackets(Array(video[0..<5]), timestampBase: 500, sequenceBase: 1)
        var videoAfter = try Self.videoPackets(Array(video[5...]), timestampBase: 0x6000_0000, sequenceBase: 30_000)
        for i in videoAfter.indices { videoAfter[i].bytes.replaceSubrange(8..<12, with: [0xDE, 0xAD, 0xBE, 0xEF]) }

        let writer = try WebMWriter(path: file, configuration: .init(video: .init(), audio: .init()))
        final class Clock { var now = Duration.zero }
        let clock = Clock()  // the archive's clock, by hand
        let audioRecorder = try RTPStreamRecorder(media: .opus, writer: writer, startOffset: .zero,
                                                  arrivalOffset: { clock.now })
        let videoRecorder = try RTPStreamRecorder(media: .vp8, writer: writer, startOffset: .zero,
                                                  arrivalOffset: { clock.now })
        for packet in first { try packet.bytes.withUnsafeBytes { _ = try audioRecorder.receive(packet: $0) } }
        for packet in videoBefore { try packet.bytes.withUnsafeBytes { _ = try videoRecorder.receive(packet: $0) } }
        // The first stream ran 1 s; the restarted one arrives at 1.5 s.
        clock.now = .milliseconds(1_500)
        var requests = 0
        for packet in second { try packet.bytes.withUnsafeBytes { _ = try audioRecorder.receive(packet: $0) } }
        for packet in videoAfter {
            if try packet.bytes.withUnsafeBytes({ try videoRecorder.receive(packet: $0) }) { requests += 1 }
        }
        try audioRecorder.flush()
        try writer.close()

        #expect(audioRecorder.counters.restarts == 1 && videoRecorder.counters.restarts == 1)
        #expect(requests >= 1, "the restarted video asks for a key frame")
        #expect(writer.counters.audioPacketsWritten == 100, "\(writer.counters)")
        #expect(writer.counters.videoFramesWritten == 15, "frames 0-4, then from the key frame 10: \(writer.counters)")
        #expect(writer.counters.droppedTotal == 0, "\(writer.counters)")
        // Audio: 1 s from 0, then 1 s from 1.5 s; video's key frame 10 is 5 frames (1/6 s) after the restarted
        // stream's first packet, at 1.667 s, its last frame at 1.5 + 14/30 s.
        let duration = try #require(try MediaTools.probe(file).duration)
        #expect(abs(duration - 2.5) <= 0.1, "duration \(duration) s")
    }

    /// A synthetic sender: 10 s of Opus with a sender report every second; at 4 s its audio origin moves 384
    /// ticks (8 ms) forward, as a TokKit sender's does when its capture clock estimate moves back
    /// (`AudioEncodeStage.originShift`). The recorder follows the reports through a ``SenderClockFollower``: the
    /// file's packet times (read back by ffprobe) stay in order, 19-21 ms apart, and end 8 ms earlier than by RTP
    /// time alone.
    @Test func audioFollowsTheSenderReportsWithoutAJump() throws {
        let directory = try MediaTools.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("follow.webm").path
        let tone = try RecordingTestMedia.encodeTone(count: 500)
        let base: UInt32 = 0xFFF0_0000  // wraps after about 22 s: not in this test, the follower's wrap is tested apart
        let packets = try Self.audioPackets(tone, timestampBase: base, sequenceBase: 100)
        let writer = try WebMWriter(path: file, configuration: .init(audio: .init()))
        let recorder = try RTPStreamRecorder(media: .opus, writer: writer, startOffset: .milliseconds(40))

        // The sender's reports: NTP time `t` since the stream's first sample; RTP `base + 48 t + shift`.
        let ntpBase: Int64 = 3_900_000_000 * 1_000_000_000
        func report(atMilliseconds t: Int, shift: UInt32) -> SenderClock {
            let nanoseconds = ntpBase + Int64(t) * 1_000_000
            let seconds = UInt64(nanoseconds / 1_000_000_000), rest = UInt64(nanoseconds % 1_000_000_000)
            return SenderClock(ntp: NTPTimestamp(rawValue: seconds << 32 | ((rest << 32) / 1_000_000_000 + 1)),
                               rtpTimestamp: base &+ UInt32(48 * t) &+ shift, clockRate: 48_000)
        }
        var follower: SenderClockFollower?
        for (n, packet) in packets.enumerated() {
            if n % 50 == 0, n > 0 {  // a report every second, the first at 1 s; the origin moves at 4 s
                let clock = report(atMilliseconds: n * 20, shift: n >= 200 ? 384 : 0)
                if follower == nil { follower = SenderClockFollower(reference: clock) }
                if let shift = follower?.shift(after: clock) { recorder.follow(correction: shift) }
            }
            try packet.bytes.withUnsafeBytes { _ = try recorder.receive(packet: $0) }
        }
        try recorder.flush()
        try writer.close()
        #expect(writer.counters.audioPacketsWritten == 500 && writer.counters.droppedTotal == 0, "\(writer.counters)")
        #expect(abs((recorder.correction + .milliseconds(8)) / .nanoseconds(1)) < 1_000, "\(recorder.correction)")

        let result = try MediaTools.run("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries",
                                                    "packet=pts", "-of", "csv=p=0", file])
        #expect(result.status == 0, "ffprobe: \(result.stderr)")
        let times = String(decoding: result.stdout, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { Int($0) }
        try #require(times.count == 500, "\(times.count) packets read back")
        for n in 1..<times.count {
            let step: Int = times[n] - times[n - 1]
            #expect(step >= 19 && step <= 21, "packet \(n): \(times[n - 1]) -> \(times[n]) ms")
        }
        #expect(times[199] == 40 + 199 * 20, "before the move: by RTP time")
        // Within a millisecond of 8 ms earlier (the sender report's NTP fraction is rounded) once reached: the move
        // is followed from its second report (the median of three, at 5 s: packet 250), then 0.2 ms a packet, 40
        // packets.
        for n in [300, 499] {
            let byRTPTime: Int = 40 + n * 20
            let moved: Int = byRTPTime - times[n]
            #expect(moved >= 7 && moved <= 9, "packet \(n) at \(times[n]) ms, \(moved) ms before its RTP time")
        }
    }
}
