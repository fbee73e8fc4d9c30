#if canImport(Glibc)
import Glibc
#endif
import CALSA
import Synchronization

/// A private alsa-lib configuration tree parsed from text (the `~/.asoundrc` syntax), for opening PCMs that
/// are defined there instead of in the system configuration.
///
/// This is how tests run the real alsa-lib path without a sound card, with ALSA's `null` and `file` plugins:
/// ```
/// pcm.n { type null }
/// pcm.out { type file slave.pcm "n" file "/tmp/out.raw" format "raw" }
/// ```
/// Only the names defined in the text exist for PCMs opened with it (`"default"` is not one of them unless
/// defined). The global configuration is neither read nor changed.
///
/// Thread-safe: PCMs are opened from it under a lock; the tree lives as long as this object.
public final class ALSAConfiguration: Sendable {
    /// The text it was parsed from.
    public let text: String
    nonisolated(unsafe) private let tree: OpaquePointer   // snd_config_t *, owned
    private let lock = Mutex(())

    /// Parses `text`; throws ``AudioDeviceError/systemError(operation:code:message:)`` (operation
    /// `snd_config_load`) when alsa-lib rejects the syntax.
    public init(_ text: String) throws(AudioDeviceError) {
        self.text = text
        var top: OpaquePointer?
        var rc = snd_config_top(&top)
        guard rc >= 0, let top else {
            throw AudioDeviceError(ALSAErrno(returned: rc), operation: "snd_config_top", device: "configuration")
        }
        var input: OpaquePointer?
        rc = text.withCString { snd_input_buffer_open(&input, $0, strlen($0)) }
        guard rc >= 0, let input else {
            snd_config_delete(top)
            throw AudioDeviceError(ALSAErrno(returned: rc), operation: "snd_input_buffer_open", device: "configuration")
        }
        rc = snd_config_load(top, input)
        snd_input_close(input)
        guard rc >= 0 else {
            snd_config_delete(top)
            throw AudioDeviceError.systemError(
                operation: "snd_config_load", code: rc,
                message: "invalid ALSA configuration: \(ALSAErrno(returned: rc))")
        }
        tree = top
    }

    deinit { snd_config_delete(tree) }

    /// Runs `body` with the tree, under the lock (alsa-lib expands definitions in place while opening).
    func withTree<R, E: Error>(_ body: (OpaquePointer) throws(E) -> R) throws(E) -> R {
        try lock.withLock { _ throws(E) in try body(tree) }
    }
}
