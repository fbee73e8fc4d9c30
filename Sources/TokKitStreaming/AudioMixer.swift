import Synchronization
import TokKitMedia

/// The render side of TokKit's audio bus: mixes every active ``AudioReceivePipeline`` into the device's
/// output.
///
/// On each ``mix(into:channels:)`` call (the audio device's render thread, normally one 10 ms period) it
/// pulls that many 48 kHz mono samples from every enabled stream, sums them with saturation, and writes the
/// result to every output channel. With no active stream it writes silence. Nothing is allocated per call.
///
/// Thread-safe: ``add(_:)`` / ``remove(_:)`` from any thread; the stream list is copied by reference once per
/// call.
public final class AudioMixer: Sendable {
    /// The most frames mixed in one step; longer requests are mixed in several steps.
    static let chunk = 480

    private let streams = Mutex<[AudioReceivePipeline]>([])
    private struct Scratch: ~Copyable {
        let sum = UnsafeMutableBufferPointer<Int32>.allocate(capacity: AudioMixer.chunk)
        let one = UnsafeMutableBufferPointer<Int16>.allocate(capacity: AudioMixer.chunk)
        deinit {
            sum.deallocate()
            one.deallocate()
        }
    }
    private let scratch = Mutex(Scratch())
    private let periods = Atomic<Int>(0)

    public init() {}

    /// Mixes `stream` from the next call on. Adding twice does nothing.
    public func add(_ stream: AudioReceivePipeline) {
        streams.withLock { s in if !s.contains(where: { $0 === stream }) { s.append(stream) } }
    }

    /// Stops mixing `stream`.
    public func remove(_ stream: AudioReceivePipeline) {
        streams.withLock { s in s.removeAll { $0 === stream } }
    }

    /// The streams mixed now.
    public var inputs: [AudioReceivePipeline] { streams.withLock { $0 } }

    /// Calls made so far that carried audio from at least one stream.
    public var periodsWithAudio: Int { periods.load(ordering: .relaxed) }

    /// Fills all of `buffer` (`channels` interleaved, 48 kHz) with the mix; returns the frames that carried
    /// audio (0 when every stream was silent or absent).
    @discardableResult
    public func mix(into buffer: UnsafeMutableBufferPointer<Int16>, channels: Int) -> Int {
        let channels = max(channels, 1)
        let frames = buffer.count / channels
        let inputs = streams.withLock { $0 }
        var audible = 0
        scratch.withLock { s in
            // The buffers are read out of `s` once: a compound assignment (`&+=`) to an element of a buffer
            // reached through a stored property of a ~Copyable value crashes Swift 6.3.1's IR generation under
            // -sanitize=thread ("Invalid bitcast").
            let sum = s.sum, scratchOne = s.one
            var start = 0
            while start < frames {
                let n = min(Self.chunk, frames - start)
                var any = false
                for i in 0..<n { sum[i] = 0 }
                for stream in inputs {
                    let one = UnsafeMutableBufferPointer(rebasing: scratchOne[0..<n])
                    guard stream.read(into: one) else { continue }
                    any = true
                    for i in 0..<n { sum[i] &+= Int32(one[i]) }
                }
                for i in 0..<n {
                    let v = Int16(clamping: sum[i])
                    for c in 0..<channels { buffer[(start + i) * channels + c] = v }
                }
                if any { audible += n }
                start += n
            }
        }
        for i in (frames * channels)..<buffer.count { buffer[i] = 0 }
        if audible > 0 { periods.add(1, ordering: .relaxed) }
        return audible
    }
}
