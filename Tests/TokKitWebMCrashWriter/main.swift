// tokkit-webm-crash-writer PATH SECONDS: writes SECONDS of the recording test media (320x240 VP8 at 30 fps and a
// 440 Hz Opus tone) into a WebM file at PATH with a WebMWriter, prints `ready <video frames> <audio packets>`, then
// waits with the file still open (never closing it) until it is killed. The recording tests SIGKILL it to check
// that what was flushed before the kill decodes (crash safety).
import Foundation
import TokKitRecording
import TokKitRecordingTestSupport

let arguments = CommandLine.arguments
guard arguments.count == 3, let seconds = Int(arguments[2]), seconds > 0 else {
    FileHandle.standardError.write(Data("usage: tokkit-webm-crash-writer PATH SECONDS\n".utf8))
    exit(2)
}
do {
    let video = try RecordingTestMedia.encodeVideo(count: 30 * seconds, width: 320, height: 240)
    let audio = try RecordingTestMedia.encodeTone(count: 50 * seconds)
    let writer = try WebMWriter(path: arguments[1], configuration: .init(
        video: .init(width: 320, height: 240), audio: .init(), clusterDuration: .seconds(1)))
    var a = 0
    for frame in video {
        while a < audio.count, audio[a].time <= frame.time {
            try audio[a].bytes.withUnsafeBytes { _ = try writer.writeAudio($0, timestamp: audio[a].time) }
            a += 1
        }
        try frame.bytes.withUnsafeBytes {
            _ = try writer.writeVideo($0, isKeyFrame: frame.isKeyFrame, timestamp: frame.time)
        }
    }
    while a < audio.count {
        try audio[a].bytes.withUnsafeBytes { _ = try writer.writeAudio($0, timestamp: audio[a].time) }
        a += 1
    }
    let counters = writer.counters
    FileHandle.standardOutput.write(Data("ready \(counters.videoFramesWritten) \(counters.audioPacketsWritten)\n".utf8))
    // Keep the writer (and the file) open until killed.
    withExtendedLifetime(writer) {
        while true { sleep(60) }
    }
} catch {
    FileHandle.standardError.write(Data("tokkit-webm-crash-writer: \(error)\n".utf8))
    exit(1)
}
