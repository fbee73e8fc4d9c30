import Dispatch
import Logging
import Synchronization
import TokKitMedia
import TokKitStreaming

/// The process's audio, shared by every session: the ``AudioDeviceManager``'s device, given TokKit's
/// ``MediaAudioBus``, captures into every publisher's ``AudioSendPipeline`` and plays the mix of every
/// subscriber's ``AudioReceivePipeline``.
///
/// Capture starts when the first sender is added and stops when the last one leaves; rendering likewise with
/// receivers. While neither side is in use, the next user picks up the device current then (so a device set with
/// ``AudioDeviceManager/setAudioDevice(_:)`` between calls is used). A device whose formats the bus cannot carry,
/// or that fails to start, leaves the media without audio and logs why; video is unaffected.
///
/// Thread-safe: one lock guards the state; the device's control calls (its contract: one control thread at a
/// time) run on one serial queue, enqueued under that lock so that they run in the order the state changed, and
/// never under it: opening ALSA can take tens of milliseconds. The device's own threads only touch the bus.
enum SharedAudio {
    private struct State: ~Copyable {
        var device: (any AudioDevice)?
        var bus: MediaAudioBus?
        var senders: Set<ObjectIdentifier> = []
        var receivers: Set<ObjectIdentifier> = []
    }

    private static let state = Mutex(State())
    /// Where the device's control calls run, one at a time, in the order they were decided.
    private static let deviceQueue = DispatchQueue(label: "TokKit.audio.device")
    private static let logger = Logger(label: "TokKit.audio")

    /// Feeds captured audio to `sender`; starts capture if it is the first.
    static func add(_ sender: AudioSendPipeline) {
        state.withLock { s in
            guard let (device, bus) = prepare(&s) else { return }
            guard s.senders.insert(ObjectIdentifier(sender)).inserted else { return }
            bus.add(sender)
            guard s.senders.count == 1 else { return }
            deviceQueue.async {
                do throws(AudioDeviceError) {
                    if !device.isCaptureInitialized { try device.initializeCapture() }
                    if !device.isCapturing { try device.startCapture() }
                } catch {
                    logger.error("audio capture could not start: \(error)")
                }
            }
        }
    }

    /// Stops feeding `sender`; stops capture after the last one.
    static func remove(_ sender: AudioSendPipeline) {
        state.withLock { s in
            guard s.senders.remove(ObjectIdentifier(sender)) != nil else { return }
            s.bus?.remove(sender)
            if s.senders.isEmpty, let device = s.device { deviceQueue.async { device.stopCapture() } }
        }
    }

    /// Mixes `receiver` into what the device plays; starts rendering if it is the first.
    static func add(_ receiver: AudioReceivePipeline) {
        state.withLock { s in
            guard let (device, bus) = prepare(&s) else { return }
            guard s.receivers.insert(ObjectIdentifier(receiver)).inserted else { return }
            bus.mixer.add(receiver)
            guard s.receivers.count == 1 else { return }
            deviceQueue.async {
                do throws(AudioDeviceError) {
                    if !device.isRenderingInitialized { try device.initializeRendering() }
                    if !device.isRendering { try device.startRendering() }
                } catch {
                    logger.error("audio rendering could not start: \(error)")
                }
            }
        }
    }

    /// Stops mixing `receiver`; stops rendering after the last one.
    static func remove(_ receiver: AudioReceivePipeline) {
        state.withLock { s in
            guard s.receivers.remove(ObjectIdentifier(receiver)) != nil else { return }
            s.bus?.mixer.remove(receiver)
            if s.receivers.isEmpty, let device = s.device { deviceQueue.async { device.stopRendering() } }
        }
    }

    /// Senders and receivers in use (tests).
    static var users: (senders: Int, receivers: Int) { state.withLock { ($0.senders.count, $0.receivers.count) } }

    /// The device and bus to use, (re)made from the current device when nothing uses the old ones.
    private static func prepare(_ s: inout State) -> (any AudioDevice, MediaAudioBus)? {
        if s.senders.isEmpty, s.receivers.isEmpty {
            let current = AudioDeviceManager.currentAudioDevice()
            if s.device !== current || s.bus == nil {
                let old = s.device
                s.device = current
                do throws(StreamingError) {
                    s.bus = try MediaAudioBus(captureFormat: current.captureFormat, renderFormat: current.renderFormat)
                } catch {
                    logger.error("audio device \(type(of: current)) not usable: \(error)")
                    s.bus = nil
                }
                let bus = s.bus
                deviceQueue.async {
                    old?.setAudioBus(nil)
                    current.setAudioBus(bus)
                }
            }
        }
        guard let device = s.device, let bus = s.bus else { return nil }
        return (device, bus)
    }
}
