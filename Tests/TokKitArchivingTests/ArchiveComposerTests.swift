import Foundation
import Synchronization
import Testing
import TokKit
import TokKitMedia

@testable import TokKitArchiving

/// The composer alone, on a made-up clock: two streams of known colours and tones, one coming late and one
/// leaving early, composed into one WebM that ffmpeg decodes back.
@Suite(.serialized, .timeLimit(.minutes(1))) struct ArchiveComposerTests {
    /// A stream that always shows one solid picture and plays one sine.
    final class ToneInput: ComposerInput {
        let streamID: StreamID
        let picture: VideoFrame
        let frequency: Double
        private let sample = Mutex(0)

        init(_ id: String, width: Int, height: Int, colour: DecodedArchive.YUV, frequency: Double) throws {
            streamID = StreamID(id)
            let cw = width / 2 * (height / 2)
            picture = try VideoFrame(format: .i420(width: width, height: height), copying: [
                [UInt8](repeating: UInt8(colour.y), count: width * height),
                [UInt8](repeating: UInt8(colour.u), count: cw), [UInt8](repeating: UInt8(colour.v), count: cw)])
            self.frequency = frequency
        }

        func picture(at time: Duration, lead: Duration) -> VideoFrame? { picture }

        func readAudio(into output: UnsafeMutableBufferPointer<Int16>, at time: Duration) -> Bool {
            sample.withLock { n in
                for i in output.indices {
                    output[i] = Int16(8_000 * sin(2 * Double.pi * frequency * Double(n + i) / 48_000))
                }
                n += output.count
            }
            return true
        }
    }

    @Test func composesTwoStreamsIntoOneFileFollowingThemAsTheyComeAndGo() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("composed-\(UUID().uuidString).webm").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let red = try ToneInput("red", width: 320, height: 240, colour: .red, frequency: 600)
        let blue = try ToneInput("blue", width: 320, height: 180, colour: .blue, frequency: 1_000)  // 16:9: letterboxed
        let composer = try ArchiveComposer(path: path, settings: ComposedArchiveSettings(width: 640, height: 480, framesPerSecond: 15))
        // 4.5 s in 10 ms steps: red alone, then both from 1 s, then blue alone from 3 s.
        for step in 0...450 {
            let t = Duration.milliseconds(10 * step)
            let inputs: [any ComposerInput] = t < .seconds(1) ? [red] : t < .seconds(3) ? [red, blue] : [blue]
            #expect(composer.advance(to: t, inputs: inputs))
        }
        #expect(composer.finish() == nil)
        let counters = composer.counters
        #expect(counters.videoFrames == 68 && counters.audioPackets == 226, "\(counters)")
        #expect(counters.audiblePeriods == 226 && counters.videoFramesSkipped == 0)
        #expect(composer.layoutChanges.map(\.streams) == [[red.streamID], [red.streamID, blue.streamID], [blue.streamID]])
        #expect(composer.layoutChanges.map(\.at) == [.zero, composer.clock.videoTime(15), composer.clock.videoTime(45)])

        let probe = try Probe.streams(path)
        #expect(probe.codecs.sorted() == ["opus", "vp8"], "\(probe)")
        #expect(probe.width == 640 && probe.height == 480)
        #expect(abs(probe.duration - 4.52) < 0.1, "\(probe)")
        #expect(try Probe.decodeErrors(path).isEmpty)

        // Red fills the canvas; then red left, blue right (letterboxed); then blue alone, letterboxed.
        let alone = try DecodedArchive.picture(path, at: 0.5, width: 640, height: 480)
        for (x, y) in [(10, 10), (320, 240), (630, 470)] {
            #expect(alone.colour(x: x, y: y).isClose(to: .red), "\(x),\(y): \(alone.colour(x: x, y: y))")
        }
        let both = try DecodedArchive.picture(path, at: 2.0, width: 640, height: 480)
        #expect(both.colour(x: 160, y: 240).isClose(to: .red), "\(both.colour(x: 160, y: 240))")
        #expect(both.colour(x: 480, y: 240).isClose(to: .blue), "\(both.colour(x: 480, y: 240))")
        #expect(both.colour(x: 480, y: 60).isClose(to: .black), "above blue: \(both.colour(x: 480, y: 60))")
        let last = try DecodedArchive.picture(path, at: 4.0, width: 640, height: 480)
        #expect(last.colour(x: 320, y: 240).isClose(to: .blue) && last.colour(x: 100, y: 240).isClose(to: .blue))
        #expect(last.colour(x: 320, y: 20).isClose(to: .black) && last.colour(x: 320, y: 460).isClose(to: .black))

        // Each tone is heard exactly while its stream is in the mix.
        let audio = try DecodedArchive.audio(path)
        #expect(abs(Double(audio.count) / 48_000 - 4.52) < 0.1)
        func level(_ f: Double, _ from: Double, _ to: Double) -> Double { DecodedArchive.amplitude(of: f, in: audio, from: from, to: to) }
        #expect(level(600, 0.2, 0.9) > 4_000 && level(1_000, 0.2, 0.9) < 400, "\(level(600, 0.2, 0.9)) \(level(1_000, 0.2, 0.9))")
        #expect(level(600, 1.2, 2.8) > 4_000 && level(1_000, 1.2, 2.8) > 4_000, "\(level(600, 1.2, 2.8)) \(level(1_000, 1.2, 2.8))")
        #expect(level(600, 3.2, 4.4) < 400 && level(1_000, 3.2, 4.4) > 4_000, "\(level(600, 3.2, 4.4)) \(level(1_000, 3.2, 4.4))")
    }

    /// Ten streams with pictures: nine are shown, and the layout is chosen once, not again on every frame (it was:
    /// the tenth stream made every frame look like a change, with a layout recorded per frame).
    @Test func tenStreamsShowNineAndTheLayoutStaysPut() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ten-\(UUID().uuidString).webm").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let inputs: [any ComposerInput] = try (0..<10).map {
            try ToneInput("s\($0)", width: 160, height: 120, colour: $0.isMultiple(of: 2) ? .red : .blue,
                          frequency: 300 + 100 * Double($0))
        }
        let composer = try ArchiveComposer(path: path, settings: ComposedArchiveSettings(width: 640, height: 480, framesPerSecond: 15))
        for step in 0...100 { #expect(composer.advance(to: .milliseconds(10 * step), inputs: inputs)) }
        #expect(composer.finish() == nil)
        #expect(composer.counters.videoFrames == 16, "\(composer.counters)")
        #expect(composer.layoutChanges.count == 1, "\(composer.layoutChanges.count) layouts")
        #expect(composer.layoutChanges.first?.streams == inputs.prefix(9).map(\.streamID))
    }

    /// Stop asked at 1 s while the composing thread keeps ticking to 2 s (it does while the archive unsubscribes):
    /// nothing scheduled after 1 s is made.
    @Test func nothingAfterTheStopInstantIsComposed() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("end-\(UUID().uuidString).webm").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let red = try ToneInput("red", width: 160, height: 120, colour: .red, frequency: 600)
        let composer = try ArchiveComposer(path: path, settings: ComposedArchiveSettings(width: 320, height: 240, framesPerSecond: 15))
        for step in 0...200 {
            let t = Duration.milliseconds(10 * step)
            #expect(composer.advance(to: t, inputs: [red], end: t >= .seconds(1) ? .seconds(1) : nil))
        }
        #expect(composer.finish() == nil)
        // Frames 0...15 (frame 15 shows at exactly 1 s) and periods 0...50, not 2 s' 31 frames and 101 periods.
        #expect(composer.counters.videoFrames == 16 && composer.counters.audioPackets == 51, "\(composer.counters)")
        #expect(composer.counters.duration <= .milliseconds(1_070), "\(composer.counters.duration)")
    }

    @Test func resolutionsAreReadAsOpenTokWritesThem() throws {
        let vga = try ComposedArchiveSettings(resolution: "640x480")
        #expect(vga.width == 640 && vga.height == 480 && vga.hasAudio && vga.hasVideo)
        let hd = try ComposedArchiveSettings(resolution: "1280x720", hasAudio: false)
        #expect(hd.width == 1280 && hd.height == 720 && !hd.hasAudio)
        // Every resolution the archive API takes, portrait ones included.
        for resolution in ["640x480", "480x640", "1280x720", "720x1280", "1920x1080", "1080x1920"] {
            #expect(throws: Never.self, "\(resolution)") { _ = try ComposedArchiveSettings(resolution: resolution) }
        }
        #expect(throws: ComposedArchiveError.self) { _ = try ComposedArchiveSettings(resolution: "1200x1920") }
        for bad in ["", "640", "640x", "x480", "640x480x2", "-640x480", "640X480", "٦٤٠x480", "99999x480", "1920x1200",
                    "641x480", " 640x480"] {
            #expect(throws: ComposedArchiveError.self, "\(bad)") { try ComposedArchiveSettings(resolution: bad) }
        }
        #expect(throws: ComposedArchiveError.self) { try ComposedArchiveSettings(resolution: "640x480", hasAudio: false, hasVideo: false) }
    }

    @Test func badSettingsAreRefusedBeforeAnythingIsCreated() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("refused-\(UUID().uuidString).webm").path
        for settings in [ComposedArchiveSettings(width: 641), ComposedArchiveSettings(width: 4096, height: 2160),
                         ComposedArchiveSettings(height: 100), ComposedArchiveSettings(framesPerSecond: 0),
                         ComposedArchiveSettings(hasAudio: false, hasVideo: false),
                         ComposedArchiveSettings(videoBitrate: 10)] {
            #expect(throws: ComposedArchiveError.self) { try ArchiveComposer(path: path, settings: settings) }
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(throws: ComposedArchiveError.self) {
            try ArchiveComposer(path: "/nonexistent-\(UUID().uuidString)/a.webm", settings: ComposedArchiveSettings())
        }
    }
}
