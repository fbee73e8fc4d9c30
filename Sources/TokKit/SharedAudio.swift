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
/// Thread-safe: one lock guards the state and serializes the device's control calls (its contract: one control
/// thread at a time). The device's own threads only touch the bus.
enum SharedAudio {
    private struct State: ~Copyable {
        var device: (any AudioDevice)?
        var bus: MediaAudioBus?
        var senders: Set<ObjectIdentifier> = []
        var receivers: Set<ObjectIdentifier> = []
    }

    private static let state = Mutex(State())
    private static let logger = Logger(label: "TokKit.audio")

    /// Feeds captured audio to `sender`; starts capture if it is the first.
    static func add(_ sender: AudioSendPipeline) {
        state.withLock { s in
            guard let (device, bus) = prepare(&s) else { return }
            guard s.senders.insert(ObjectIdentifier(sender)).inserted else { return }
            bus.add(sender)
            guard s.senders.count == 1 else { return }
            do throws(AudioDeviceError) {
                if !device.isCaptureInitialized { try device.initializeCapture() }
                if !device.isCapturing { try device.startCapture() }
            } catch {
                logger.error("audio capture could not start: \(error)")
            }
        }
    }

    /// Stops feeding `sender`; stops capture after the last one.
    static func remove(_ sender: AudioSendPipeline) {
        state.withLock { s in
            guard s.senders.remove(ObjectIdentifier(sender)) != nil else { return }
            s.bus?.remove(sender)
            if s.senders.isEmpty { s.device?.stopCapture() }
        }
    }

    /// Mixes `receiver` into what the device plays; starts rendering if it is the first.
    static func add(_ receiver: AudioReceivePipeline) {
        state.withLock { s in
            guard let (device, bus) = prepare(&s) else { return }
            guard s.receivers.insert(ObjectIdentifier(receiver)).inserted else { return }
            bus.mixer.add(receiver)
            guard s.receivers.count == 1 else { return }
            do throws(AudioDeviceError) {
                if !device.isRenderingInitialized { try device.initializeRendering() }
                if !device.isRendering { try device.startRendering() }
            } catch {
                logger.error("audio rendering could not start: \(error)")
            }
        }
    }

    /// Stops mixing `receiver`; stops rendering after the last one.
    static func remove(_ receiver: AudioReceivePipeline) {
        state.withLock { s in
            guard s.receivers.remove(ObjectIdentifier(receiver)) != nil else { return }
            s.bus?.mixer.remove(receiver)
            if s.receivers.isEmpty { s.device?.stopRendering() }
        }
    }

    /// Senders and receivers in use (tests).
    static var users: (senders: Int, receivers: Int) { state.withLock { ($0.senders.count, $0.receivers.count) } }

    /// The device and bus to use, (re)made from the current device when nothing uses the old ones.
    private static func prepare(_ s: inout State) -> (any AudioDevice, MediaAudioBus)? {
        if s.senders.isEmpty, s.receivers.isEmpty {
            let current = AudioDeviceManager.currentAudioDevice()
            if s.device !== current || s.bus == nil {
                s.device?.setAudioBus(nil)
                s.device = current
                do throws(StreamingError) {
                    s.bus = try MediaAudioBus(captureFormat: current.captureFormat, renderFormat: current.renderFormat)
                } catch {
                    logger.error("audio device \(type(of: current)) not usable: \(error)")
                    s.bus = nil
                }
                current.setAudioBus(s.bus)
            }
        }
        guard let device = s.device, let bus = s.bus else { return nil }
        return (device, bus)
    }
}
