import TokKitCodecs

/// An ``AudioReceivePipeline``'s decoder state: the Opus decoder and one decoded 20 ms frame served in pieces
/// (normally two 10 ms halves), preallocated.
///
/// Used only under the pipeline's lock (on the render thread), which is what makes `@unchecked Sendable` sound.
struct AudioDecodeStage: ~Copyable, @unchecked Sendable {
    /// A decoded frame holds at most 120 ms (Opus' longest packet).
    static let capacity = OpusDecoder.maximumSamplesPerChannel

    private let decoder: OpusDecoder?
    private let pcm: UnsafeMutableBufferPointer<Int16>
    private var available = 0
    private var position = 0
    /// Samples per channel of the last decoded packet: the length concealment produces for a lost one.
    private var lastLength = 960

    init() {
        decoder = try? OpusDecoder(sampleRate: 48_000, channels: 1)
        pcm = .allocate(capacity: Self.capacity)
        pcm.initialize(repeating: 0)
    }

    deinit { pcm.deallocate() }

    /// Fills `output` from decoded audio, calling `refill` when the decoded frame is used up; `refill` gets a
    /// `decode(payload, missing)` function to call at most once. Returns false (writing nothing) when there was
    /// nothing to play.
    mutating func read(
        into output: UnsafeMutableBufferPointer<Int16>,
        refill: ((UnsafeRawBufferPointer, Bool) -> Bool) -> Void
    ) -> Bool {
        var written = 0
        while written < output.count {
            if position == available {
                refill { payload, missing in decode(payload, missing: missing) }
                guard position < available else { break }
            }
            let n = min(output.count - written, available - position)
            for i in 0..<n { output[written + i] = pcm[position + i] }
            position += n
            written += n
        }
        guard written > 0 else { return false }
        for i in written..<output.count { output[i] = 0 }
        return true
    }

    /// Decodes one packet (or conceals a missing one, with the next packet's FEC when `payload` is not empty)
    /// into the frame buffer.
    private mutating func decode(_ payload: UnsafeRawBufferPointer, missing: Bool) -> Bool {
        guard let decoder else { return false }
        position = 0
        available = 0
        do throws(CodecError) {
            if missing {
                let target = UnsafeMutableBufferPointer(rebasing: pcm[0..<lastLength])
                available = try decoder.decodeMissing(using: payload.isEmpty ? nil : payload, into: target)
            } else {
                available = try decoder.decode(payload, into: pcm)
                lastLength = available
            }
            return true
        } catch {
            return false
        }
    }
}
