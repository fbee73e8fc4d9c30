import Synchronization
import TokKitAudio

/// Chooses the one `AudioDevice` every publisher and subscriber of the process uses, as the SDK's
/// `OTAudioDeviceManager`.
///
/// Set a custom device with ``setAudioDevice(_:)`` **before** anything connects. Without one, the first call
/// to ``currentAudioDevice()`` creates the ``defaultAudioDevice(cardsFile:)``: ALSA `"default"` when a sound card is
/// usable, otherwise a `NullAudioDevice`, so a machine without a sound card can still publish and subscribe.
///
/// Replacing the device while it is capturing or rendering is refused with `AudioDeviceError.deviceBusy`
/// (stop the sessions using it first). A device that is initialized but stopped may be replaced: the old one
/// is simply dropped, and closes its hardware when its last user lets go of it.
///
/// Thread-safe: all members may be called from any thread.
public enum AudioDeviceManager {
    private static let device = Mutex<(any AudioDevice)?>(nil)

    /// Makes `device` the process-wide device; nil goes back to the default (created on next use).
    /// Throws `AudioDeviceError.deviceBusy` while the current device is capturing or rendering.
    public static func setAudioDevice(_ newDevice: (any AudioDevice)?) throws(AudioDeviceError) {
        try device.withLock { current throws(AudioDeviceError) in
            if let current, current !== newDevice, current.isCapturing || current.isRendering {
                throw .deviceBusy("the current audio device (\(type(of: current))) is in use")
            }
            current = newDevice
        }
    }

    /// The process-wide device, creating the default one on first use.
    public static func currentAudioDevice() -> any AudioDevice {
        device.withLock { current in
            if let current { return current }
            let made = defaultAudioDevice()
            current = made
            return made
        }
    }

    /// A new device of the kind TokKit uses when none was set: an `ALSAAudioDevice` on `"default"` when
    /// `SoundCardProbe.isUsable` says a card is there, else a `NullAudioDevice`.
    public static func defaultAudioDevice(cardsFile: String = "/proc/asound/cards") -> any AudioDevice {
        SoundCardProbe.isUsable(pcm: "default", cardsFile: cardsFile)
            ? ALSAAudioDevice()
            : NullAudioDevice()
    }
}
