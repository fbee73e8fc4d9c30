import Foundation
import TokKitAudio
import TokKitMedia

/// Hands every frame to two renderers in turn (the view and the recorder), on the caller's thread.
final class TeeRenderer: VideoRender {
    let first: any VideoRender
    let second: any VideoRender

    init(_ first: any VideoRender, _ second: any VideoRender) {
        self.first = first
        self.second = second
    }

    func renderVideoFrame(_ frame: VideoFrame) {
        first.renderVideoFrame(frame)
        second.renderVideoFrame(frame)
    }
}

/// The strongest frequency of a mono WAV file between 100 Hz and 2 kHz, in 10 Hz steps (Goertzel over the
/// second half of the file, where the call is established); nil when the file is missing or silent.
func strongestFrequency(of path: String) -> Int? {
    guard let reader = try? WAVReader(path: path), reader.format.numberOfChannels == 1, reader.frameCount > 4_800
    else { return nil }
    var samples = [Int16](repeating: 0, count: reader.frameCount)
    guard let read = try? samples.withUnsafeMutableBufferPointer({ try reader.read(into: $0) }) else { return nil }
    let tail = samples[(read / 2)..<read]
    guard tail.contains(where: { abs(Int($0)) > 100 }) else { return nil }
    let rate = Double(reader.format.sampleRate)
    func power(_ frequency: Double) -> Double {
        let k = 2 * cos(2 * .pi * frequency / rate)
        var (s1, s2) = (0.0, 0.0)
        for x in tail {
            let s0 = Double(x) + k * s1 - s2
            (s2, s1) = (s1, s0)
        }
        return s1 * s1 + s2 * s2 - k * s1 * s2
    }
    return stride(from: 100, through: 2_000, by: 10).max { power(Double($0)) < power(Double($1)) }
}
