/// Where an ``AudioDevice`` delivers captured samples and fetches samples to play, as the SDK's `OTAudioBus`.
///
/// TokKit provides the bus (the publisher reads capture data from it, subscribers' mixed audio is offered on it);
/// a device only calls it. Samples are interleaved Int16 in the device's ``AudioDevice/captureFormat`` or
/// ``AudioDevice/renderFormat``, normally one 10 ms period per call.
///
/// Both methods are called from the device's own threads (a capture thread and a render thread), never
/// concurrently on the same side; implementations are thread-safe, non-blocking and allocation-free.
public protocol AudioBus: AnyObject, Sendable {
    /// Hands over captured samples (`samples.count` = frames × channels). The bus copies them before returning.
    func writeCaptureData(_ samples: UnsafeBufferPointer<Int16>)
    /// Fills `buffer` completely with samples to play (silence where there is nothing) and returns how many
    /// frames carried real audio.
    @discardableResult
    func readRenderData(_ buffer: UnsafeMutableBufferPointer<Int16>) -> Int
}
