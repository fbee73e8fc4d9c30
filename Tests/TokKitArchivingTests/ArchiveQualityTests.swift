import Foundation
import Testing
import TokKit
import TokKitAudio
import TokKitMedia
import TokKitProtocol
import TokKitRecordingTestSupport
import TokKitTesting

@testable import TokKitArchiving
@testable import TokKitServer

/// Issue 16's recording-quality acceptance, through the real embedded server and its archive service: what a
/// recording of known sources contains, decoded back by ffmpeg.
///
/// "Recorded for 10 s" means: the archive API's `stop` is called 10 s (this process's monotonic clock) after its
/// `start` returned, the publishers having published before the start. The file's duration (ffprobe's, on the
/// archive's timeline, which starts when the recording started) must be within 0.3 s of that.
///
/// - Two parties (this process and a helper process, each its own audio device): the numbered pattern of
///   ``RecordingTestMedia`` at 320x240 30 fps, a 440 Hz and a 1 kHz tone. Individual mode: each file VP8 + Opus,
///   about 10 s, decoded without an error, every picture's luma PSNR against the source frame its number names at
///   least 30 dB, its own tone there. Composed mode (640x480: two 320x240 cells side by side, unscaled, centred in
///   their halves): the same format, duration and decode checks, both tones in the mix, and every two-cell picture's
///   cells at least 30 dB against the source frames they name.
/// - Flash and beep (``FlashBeepCapturer`` and ``FlashBeepAudioDevice`` on one schedule: a 100 ms white flash and a
///   1 kHz beep captured at the same instants, once a second; every picture also carries its slot's phase in a band
///   that changes every frame, so the encoder works as on a real, moving picture). In both modes every picture from
///   the first beep on must be at most 40 ms from the sound captured with it (``PictureSoundOffsets``), not only a
///   flash's first white picture: a 15 fps canvas (composed) can show a flash only on its 66.7 ms grid, and a
///   source frame dropped under load (individual) would make a flash's first white picture its second slot's.
///   Individual files keep every picture at its own time (placed from the audio by the sender reports, the Opus
///   track's pre-skip taking off the encoder's lookahead); composed ones place each stream's audio and pictures by
///   its sender reports (``ComposedSync``), each canvas showing the picture due nearest its time.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ArchiveQualityTests {
    static let seconds = 10.0
    static let minimumPSNR = 30.0

    // MARK: - Two parties, pattern and tones

    @Test func twoPartiesRecordedIndividuallyKeepTheirPicturesAndTones() async throws {
        let fixture = try await ArchiveTestServer()
        defer { fixture.removeDirectory() }
        let (local, helper) = try await publishTwoParties(fixture)
        defer { stop(helper) }
        let archive = try await fixture.record(.individual, seconds: Self.seconds)
        await local.disconnect()
        await fixture.server.stop()

        #expect(archive.status == .available, "\(archive.reason ?? "")")
        try #require(archive.streams.count == 2, "\(archive.streams)")
        var psnrs: [Double] = []
        var tones: [Double] = []
        for (n, stream) in archive.streams.enumerated() {
            let path = fixture.path(archive, stream.file)
            try checkFormatDurationAndDecoding(path, width: 320, height: 240)
            let planes = try DecodedArchive.lumaPlanes(path, width: 320, height: 240)
            #expect(planes.count >= Int(Self.seconds * (Sanitizers.active ? 8 : 20)), "stream \(n): \(planes.count) pictures")
            psnrs += try patternPSNR(planes.map { ($0, 0) }, width: 320, height: 240, stride: 320)
            // Each file carries its party's tone, and only that one.
            let audio = try DecodedArchive.audioTimeline(path)
            // Video before the sender reports that place it is dropped: how late the first picture comes after
            // the audio (a figure for the log, not a bar).
            let firstSound = Double(audio.firstIndex { abs($0) > 1_000 } ?? 0) / 48_000
            let firstPicture = try DecodedArchive.videoFrameTimes(path).first ?? .nan
            print(String(format: "stream %d: audio from %.3f s, first picture at %.3f s: video starts %.3f s after audio",
                         n, firstSound, firstPicture, firstPicture - firstSound))
            let heard = [440.0, 1_000.0].map { heardFraction($0, in: audio, from: 1, to: Self.seconds - 0.3) }
            let (own, other) = heard[0] > heard[1] ? (440.0, 1_000.0) : (1_000.0, 440.0)
            tones.append(own)
            #expect(max(heard[0], heard[1]) >= 0.8, "stream \(n): tones heard in \(heard) of the windows")
            #expect(DecodedArchive.amplitude(of: other, in: audio, from: 1, to: Self.seconds - 0.3) < 300,
                    "stream \(n): no \(other) Hz")
        }
        #expect(tones.sorted() == [440, 1_000], "one file per party: \(tones)")
        report("individual", psnrs)
    }

    @Test func twoPartiesRecordedComposedKeepTheirPicturesAndTones() async throws {
        let fixture = try await ArchiveTestServer()
        defer { fixture.removeDirectory() }
        let (local, helper) = try await publishTwoParties(fixture)
        defer { stop(helper) }
        let archive = try await fixture.record(.composed, seconds: Self.seconds, resolution: "640x480")
        await local.disconnect()
        await fixture.server.stop()

        #expect(archive.status == .available, "\(archive.reason ?? "")")
        let file = try #require(archive.streams.first)
        let path = fixture.path(archive, file.file)
        try checkFormatDurationAndDecoding(path, width: 640, height: 480)

        // Two-cell pictures have black letterbox bands above and below the cells (rows 0..<120, 360..<480) and a
        // picture in the cells (the canvas is all black before the first pictures arrive).
        let planes = try DecodedArchive.lumaPlanes(path, width: 640, height: 480)
        let twoCell = planes.filter {
            meanLuma($0, width: 640, rows: 8..<112) < 24 && meanLuma($0, width: 640, rows: 368..<472) < 24
                && meanLuma($0, width: 640, rows: 120..<360) > 40
        }
        #expect(twoCell.count >= planes.count * 8 / 10 && twoCell.count >= Int(Self.seconds * 10),
                "\(twoCell.count) of \(planes.count) pictures show both parties")
        var cells: [([UInt8], Int)] = []
        for plane in twoCell {
            cells.append((plane, 120 * 640))        // left cell: x 0..<320, y 120..<360
            cells.append((plane, 120 * 640 + 320))  // right cell: x 320..<640
        }
        let psnrs = try patternPSNR(cells, width: 320, height: 240, stride: 640)
        report("composed", psnrs)

        let audio = try DecodedArchive.audioTimeline(path)
        for frequency in [440.0, 1_000.0] {
            let heard = heardFraction(frequency, in: audio, from: 1, to: Self.seconds - 0.3)
            #expect(heard >= 0.8, "\(frequency) Hz heard in \(heard) of the windows of the mix")
        }
    }

    // MARK: - Flash and beep

    @Test(arguments: [ArchiveOutputMode.individual, .composed])
    func flashesAndBeepsStayTogether(_ mode: ArchiveOutputMode) async throws {
        let fixture = try await ArchiveTestServer()
        defer { fixture.removeDirectory() }
        let schedule = FlashBeepSchedule(origin: MonotonicClock.now() + .seconds(1))
        try AudioDeviceManager.setAudioDevice(FlashBeepAudioDevice(schedule: schedule))
        defer { _ = try? AudioDeviceManager.setAudioDevice(nil) }
        let session = try await fixture.member()
        // The changing band is the realistic case: with it, individual runs measured 85-216 ms in 6 of 11 loaded
        // runs before 2026-11-28 (the sender's audio timestamps then left their capture instants under load, and
        // the measurement counted the file's start time as offset; see Archiving.md).
        let capturer = FlashBeepCapturer(width: 320, height: 240, schedule: schedule, stampsPhase: true)
        try await session.publish(Publisher(name: "flash", videoCapture: capturer))
        let archive = try await fixture.record(mode, seconds: 6)
        await session.disconnect()
        await fixture.server.stop()

        #expect(archive.status == .available, "\(archive.reason ?? "")")
        let file = try #require(archive.streams.first)
        let path = fixture.path(archive, file.file)
        let (width, height) = mode == .composed ? (640, 480) : (320, 240)
        let planes = try DecodedArchive.lumaPlanes(path, width: width, height: height)
        let times = try DecodedArchive.videoFrameTimes(path)
        try #require(planes.count == times.count && planes.count > 20, "\(planes.count) pictures, \(times.count) times")
        let audio = try DecodedArchive.audioTimeline(path)
        let packets = try DecodedArchive.audioPacketTimes(path)
        let gaps = zip(packets, packets.dropFirst()).compactMap { previous, next -> String? in
            let gap = next.time - (previous.time + previous.duration)
            return abs(gap) > 0.0015 ? String(format: "%+.0f ms at %.3f s", gap * 1000, next.time) : nil
        }
        print("flash-and-beep \(mode): \(packets.count) audio packets, gaps and overlaps: \(gaps)")

        // A flash starts at a picture whose centre is white right after one that was dark (not a grey transition
        // such as the first, coarse key frame of a stream, nor after a gap: then the onset is not known).
        var flashes: [Double] = []
        let rows = (height / 2 - 40)..<(height / 2 + 40)
        let frameGap = mode == .composed ? 0.1 : 0.05
        for i in 1..<planes.count where times[i] - times[i - 1] < frameGap {
            if meanLuma(planes[i], width: width, rows: rows) > 128 && meanLuma(planes[i - 1], width: width, rows: rows) < 64 {
                flashes.append(times[i])
            }
        }
        // The last 0.3 s of the audio are not measured: the stop (the archiver leaving the session) may cut a beep
        // and end the stream's pictures there.
        let end = Double(audio.count) / 48_000 - 0.3
        let beeps = beepStarts(in: audio).filter { $0 <= end }
        flashes.removeAll { $0 > end }
        var onsets: [Double] = []
        for flash in flashes {
            guard let beep = beeps.min(by: { abs($0 - flash) < abs($1 - flash) }), abs(beep - flash) < 0.5 else { continue }
            onsets.append(flash - beep)
        }
        print("flash-and-beep \(mode): flashes at \(flashes.map { String(format: "%.3f", $0) }), beeps at \(beeps.map { String(format: "%.3f", $0) }), first white picture - beep (ms) \(onsets.map { Int(($0 * 1000).rounded()) })")
        // (Every picture is measured below; the flashes' onsets are a figure for the log. Two at least: in one loaded
        // run of 2026-11-28 the individual file's video started 2.5 s in, after its key frame came late.)
        #expect(flashes.count >= 2 && onsets.count == flashes.count,
                "\(flashes.count) flashes, \(beeps.count) beeps, \(onsets.count) paired")
        // Every picture from the first beep to the end measured: its time against its own sound's.
        let firstBeep = try #require(beeps.first, "beeps in the audio")
        var pictures: [(time: Double, phase: Int)] = []
        for (plane, time) in zip(planes, times) where time >= firstBeep && time < end {
            let phase = plane.withUnsafeBufferPointer { FlashBeepCapturer.phase(inLuma: $0, width: width, height: height) }
            pictures.append((time, phase))
        }
        let offsets = PictureSoundOffsets.measure(pictures: pictures, beeps: beeps, schedule: schedule)
        let ms = offsets.map { Int(($0 * 1000).rounded()) }
        print("flash-and-beep \(mode): picture - sound offsets over \(ms.count) pictures (ms): min \(ms.min() ?? 0), median \(ms.isEmpty ? 0 : ms.sorted()[ms.count / 2]), max \(ms.max() ?? 0); all \(ms)")
        #expect(offsets.count >= 30, "\(offsets.count) pictures measured")
        let outside = zip(pictures, offsets).filter { abs($0.1) > PictureSoundOffsets.limit }
            .map { String(format: "%.0f ms at %.3f s", $0.1 * 1000, $0.0.time) }
        #expect(outside.isEmpty, "\(outside.count) of \(offsets.count) pictures over \(Int(PictureSoundOffsets.limit * 1000)) ms from their sound: \(outside)")
    }

    // MARK: - Helpers

    /// This process publishes the numbered pattern with a 440 Hz tone; a helper process (its own audio device)
    /// publishes it with a 1 kHz tone. Returns once this process sees the helper's stream.
    private func publishTwoParties(_ fixture: ArchiveTestServer) async throws -> (Session, Process) {
        let helperPath = try #require(ComposedArchiverTests.helper("tokkit-archive-test-publisher"),
                                      "tokkit-archive-test-publisher is not built next to the tests: run `swift build --build-tests`")
        _ = try? AudioDeviceManager.setAudioDevice(ToneAudioDevice(frequency: 440))
        let local = try await fixture.member()
        try await local.publish(Publisher(name: "local", videoCapture: NumberedPatternCapturer(width: 320, height: 240)))
        let helper = Process()
        helper.executableURL = URL(fileURLWithPath: helperPath)
        helper.arguments = [fixture.url.absoluteString, fixture.apiKey, fixture.sessionID,
                            try await fixture.server.issueToken(sessionID: fixture.sessionID).token,
                            "1000", "0", "0", "0", "\(Self.seconds + 20)", "numbered"]
        helper.standardOutput = FileHandle.nullDevice
        try helper.run()
        for _ in 0..<200 where local.streams.isEmpty {
            try await Task.sleep(for: .milliseconds(50))
        }
        if local.streams.isEmpty { stop(helper) }
        try #require(local.streams.count == 1, "the helper's stream was published")
        // Let the helper's first pictures through before the archive starts (both parties are there all along).
        try await Task.sleep(for: .milliseconds(500))
        return (local, helper)
    }

    private func stop(_ helper: Process) {
        if helper.isRunning { helper.terminate() }
        helper.waitUntilExit()
    }

    /// VP8 and Opus, `width` x `height`, a duration within 0.3 s of the recording's, decoded without an error.
    private func checkFormatDurationAndDecoding(_ path: String, width: Int, height: Int) throws {
        let probed = try Probe.streams(path)
        print("archive \(URL(fileURLWithPath: path).lastPathComponent): \(probed)")
        #expect(probed.codecs.sorted() == ["opus", "vp8"] && probed.width == width && probed.height == height, "\(probed)")
        #expect(abs(probed.duration - Self.seconds) <= 0.3, "recorded for \(Self.seconds) s: \(probed.duration) s")
        let errors = try Probe.decodeErrors(path)
        #expect(errors.isEmpty, "ffmpeg: \(errors)")
    }

    /// The luma PSNR of each 320x240-style region (a plane and the offset of its top left corner, rows `stride`
    /// apart) against the pattern frame whose number it shows; every one must reach ``minimumPSNR``.
    private func patternPSNR(_ regions: [([UInt8], Int)], width: Int, height: Int, stride: Int) throws -> [Double] {
        var sources: [Int: [UInt8]] = [:]
        var region = [UInt8](repeating: 0, count: width * height)
        var results: [Double] = []
        for (plane, origin) in regions {
            for row in 0..<height {
                let from = origin + row * stride
                region.replaceSubrange((row * width)..<((row + 1) * width), with: plane[from..<(from + width)])
            }
            let number = region.withUnsafeBufferPointer { RecordingTestMedia.frameNumber(inLuma: $0, width: width) }
            if sources[number] == nil { sources[number] = RecordingTestMedia.luma(index: number, width: width, height: height) }
            let psnr = LumaPSNR.decibels(region, sources[number]!)
            if psnr < Self.minimumPSNR {
                print(String(format: "picture %d: number %d, luma PSNR %.2f dB, mean luma %.1f", results.count, number, psnr,
                             Double(region.reduce(0) { $0 + Int($1) }) / Double(region.count)))
            }
            results.append(psnr)
        }
        try #require(!results.isEmpty, "pictures to measure")
        let worst = results.min()!
        #expect(worst >= Self.minimumPSNR, "lowest luma PSNR \(worst) dB over \(results.count) pictures")
        return results
    }

    private func report(_ mode: String, _ psnrs: [Double]) {
        guard let worst = psnrs.min() else { return }
        let mean = psnrs.reduce(0, +) / Double(psnrs.count)
        print(String(format: "archive quality %@: luma PSNR min %.2f dB, mean %.2f dB over %d pictures", mode, worst, mean, psnrs.count))
    }

    /// The fraction of 200 ms windows between `from` and `to` s where `frequency` is loud (over 2000 of the 8000
    /// sent).
    private func heardFraction(_ frequency: Double, in audio: [Int16], from: Double, to: Double) -> Double {
        let windows = Swift.stride(from: from, to: to - 0.2, by: 0.2).map {
            DecodedArchive.amplitude(of: frequency, in: audio, from: $0, to: $0 + 0.2)
        }
        return windows.isEmpty ? 0 : Double(windows.filter { $0 > 2_000 }.count) / Double(windows.count)
    }

    /// The mean luma of `rows` of a plane `width` wide.
    private func meanLuma(_ plane: [UInt8], width: Int, rows: Range<Int>) -> Double {
        var sum = 0
        for row in rows { for x in 0..<width { sum += Int(plane[row * width + x]) } }
        return Double(sum) / Double(rows.count * width)
    }

    /// The start, in seconds, of every beep: the first 1 ms whose RMS exceeds 2000 (a quarter of the beep's peak)
    /// after at least 300 ms under it.
    private func beepStarts(in audio: [Int16]) -> [Double] {
        let window = 48
        var starts: [Double] = []
        var quiet = 0
        var i = 0
        while i + window <= audio.count {
            var energy = 0.0
            for j in i..<(i + window) { energy += Double(audio[j]) * Double(audio[j]) }
            if (energy / Double(window)).squareRoot() > 2_000 {
                if quiet >= 300 { starts.append(Double(i) / 48_000) }
                quiet = 0
            } else {
                quiet += 1
            }
            i += window
        }
        return starts
    }
}
