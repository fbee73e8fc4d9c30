#if canImport(Glibc)
import Glibc
#endif
import CALSA

/// A negative error code returned by alsa-lib, as a value (in the style of swift-system's `Errno`).
///
/// alsa-lib reports failures as `-errno`; ``code`` keeps the positive errno. The named constants are the codes
/// the PCM data path treats specially.
struct ALSAErrno: Error, Hashable, Sendable, CustomStringConvertible {
    /// The positive errno value.
    let code: Int32

    /// Wraps alsa-lib's negative return value (or a positive errno).
    init(returned value: some BinaryInteger) { code = Int32(truncatingIfNeeded: value.magnitude) }

    /// `EPIPE`: the stream over- or under-ran (xrun).
    static let xrun = ALSAErrno(returned: EPIPE)
    /// `ESTRPIPE`: the device was suspended.
    static let suspended = ALSAErrno(returned: ESTRPIPE)
    /// `EAGAIN`: non-blocking call with nothing to do.
    static let wouldBlock = ALSAErrno(returned: EAGAIN)
    /// `ENOENT`: no PCM of that name / no such device node.
    static let noEntry = ALSAErrno(returned: ENOENT)
    /// `ENODEV`: the device went away.
    static let noDevice = ALSAErrno(returned: ENODEV)
    /// `EBUSY`: another process holds the device.
    static let busy = ALSAErrno(returned: EBUSY)
    /// `EINVAL`: a parameter outside what the device supports.
    static let invalid = ALSAErrno(returned: EINVAL)
    /// `EINTR`: a signal interrupted a blocking call.
    static let interrupted = ALSAErrno(returned: EINTR)

    /// alsa-lib's own message for the code.
    var description: String { String(cString: snd_strerror(-code)) }

    /// Runs an alsa-lib call returning `0` or `-errno`.
    @inline(__always)
    static func check(_ result: Int32) throws(ALSAErrno) {
        if result < 0 { throw ALSAErrno(returned: result) }
    }
}
