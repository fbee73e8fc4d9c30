import Synchronization
import TokKitMedia

/// The ``AudioBus`` TokKit gives the process's ``AudioDevice``: its capture side feeds every publisher's
/// ``AudioSendPipeline``; its render side is the ``AudioMixer`` of every subscriber's ``AudioReceivePipeline``.
///
/// Both formats must be 48 kHz, mono or stereo (the device's ``AudioDevice/captureFormat`` and
/// ``AudioDevice/renderFormat``). The device calls ``writeCaptureData(_:)`` on its capture thread and
/// ``readRenderData(_:)`` on its render thread; both are non-blocking and allocation-free. Senders are added
/// and removed from any thread.
public final class MediaAudioBus: AudioBus {
    /// The format the device captures in.
    public let captureFormat: AudioFormat
    /// The format the device plays in.
    public let renderFormat: AudioFormat
    /// The render side: add subscribers' receive pipelines here.
    public let mixer: AudioMixer

    private let senders = Mutex<[AudioSendPipeline]>([])

    /// Throws ``StreamingError/unsupportedAudioFormat(_:)`` unless both formats are 48 kHz mono or stereo.
    public init(captureFormat: AudioFormat = .voice, renderFormat: AudioFormat = .voice,
                mixer: AudioMixer = AudioMixer()) throws(StreamingError) {
        for f in [captureFormat, renderFormat] where f.sampleRate != 48_000 || !(1...2).contains(f.numberOfChannels) {
            throw .unsupportedAudioFormat(f)
        }
        self.captureFormat = captureFormat
        self.renderFormat = renderFormat
        self.mixer = mixer
    }

    /// Feeds captured audio to `sender` from the next period on. Adding twice does nothing.
    public func add(_ sender: AudioSendPipeline) {
        senders.withLock { s in if !s.contains(where: { $0 === sender }) { s.append(sender) } }
    }

    /// Stops feeding `sender`.
    public func remove(_ sender: AudioSendPipeline) {
        senders.withLock { s in s.removeAll { $0 === sender } }
    }

    public func writeCaptureData(_ samples: UnsafeBufferPointer<Int16>) {
        let targets = senders.withLock { $0 }
        for sender in targets { sender.write(samples, channels: captureFormat.numberOfChannels) }
    }

    @discardableResult
    public func readRenderData(_ buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        mixer.mix(into: buffer, channels: renderFormat.numberOfChannels)
    }
}
