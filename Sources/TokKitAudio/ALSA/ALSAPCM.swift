#if canImport(Glibc)
import Glibc
#endif
import CALSA

/// An open alsa-lib PCM handle: the thin throwing layer over `snd_pcm_*` that the ALSA device is built on.
///
/// Opening never blocks on a busy device (it opens non-blocking, then switches to blocking I/O). Every call
/// returns alsa-lib's result as a typed ``ALSAErrno``; the handle is closed on deinit.
///
/// Not thread-safe: one thread at a time (the control thread while stopped, the side's data thread while
/// running).
final class ALSAPCM: @unchecked Sendable {
    /// Which way the samples flow.
    enum Direction: Sendable {
        case playback, capture
        var stream: snd_pcm_stream_t { self == .playback ? SND_PCM_STREAM_PLAYBACK : SND_PCM_STREAM_CAPTURE }
    }

    /// What ``configure(format:periodFrames:periods:)`` settled on.
    struct Geometry: Sendable, Hashable {
        var periodFrames: Int
        var bufferFrames: Int
    }

    let name: String
    let direction: Direction
    private let pcm: OpaquePointer   // snd_pcm_t *

    /// Opens the PCM `name` from the global configuration, or from `configuration` when given.
    init(name: String, direction: Direction, configuration: ALSAConfiguration?) throws(AudioDeviceError) {
        var handle: OpaquePointer?
        let mode = Int32(SND_PCM_NONBLOCK)
        let rc: Int32
        if let configuration {
            rc = configuration.withTree { tree in snd_pcm_open_lconf(&handle, name, direction.stream, mode, tree) }
        } else {
            rc = snd_pcm_open(&handle, name, direction.stream, mode)
        }
        guard rc >= 0, let handle else {
            throw AudioDeviceError(ALSAErrno(returned: rc), operation: "snd_pcm_open", device: name)
        }
        let blocking = snd_pcm_nonblock(handle, 0)
        guard blocking >= 0 else {
            snd_pcm_close(handle)
            throw AudioDeviceError(ALSAErrno(returned: blocking), operation: "snd_pcm_nonblock", device: name)
        }
        self.name = name
        self.direction = direction
        self.pcm = handle
    }

    deinit { snd_pcm_close(pcm) }

    /// Sets interleaved S16_LE at `format`'s exact rate and channel count, a period near `periodFrames` and a
    /// buffer near `periods` periods, then the software parameters: playback starts once two periods are
    /// queued, capture on the first read; wake-ups every period.
    ///
    /// Throws ``AudioDeviceError/unsupportedFormat(_:)`` when the PCM cannot do `format`.
    func configure(format: AudioFormat, periodFrames: Int, periods: Int) throws(AudioDeviceError) -> Geometry {
        func fail(_ rc: Int32, _ op: String, format: AudioFormat? = nil) -> AudioDeviceError {
            AudioDeviceError(ALSAErrno(returned: rc), operation: op, device: name, format: format)
        }
        var hwp: OpaquePointer?
        var rc = tk_snd_pcm_hw_params_any_malloc(pcm, &hwp)
        guard rc >= 0, let hw = hwp else { throw fail(rc, "snd_pcm_hw_params_any") }
        defer { snd_pcm_hw_params_free(hw) }

        rc = snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED)
        guard rc >= 0 else { throw fail(rc, "snd_pcm_hw_params_set_access") }
        rc = snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE)
        guard rc >= 0 else { throw fail(rc, "snd_pcm_hw_params_set_format", format: format) }
        rc = snd_pcm_hw_params_set_channels(pcm, hw, UInt32(format.numberOfChannels))
        guard rc >= 0 else { throw fail(rc, "snd_pcm_hw_params_set_channels", format: format) }
        rc = snd_pcm_hw_params_set_rate(pcm, hw, UInt32(format.sampleRate), 0)
        guard rc >= 0 else { throw fail(rc, "snd_pcm_hw_params_set_rate", format: format) }

        var period = snd_pcm_uframes_t(periodFrames)
        var dir: Int32 = 0
        rc = snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, &dir)
        guard rc >= 0 else { throw fail(rc, "snd_pcm_hw_params_set_period_size_near") }
        var buffer = period * snd_pcm_uframes_t(max(2, periods))
        rc = snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer)
        guard rc >= 0 else { throw fail(rc, "snd_pcm_hw_params_set_buffer_size_near") }
        rc = snd_pcm_hw_params(pcm, hw)
        guard rc >= 0 else { throw fail(rc, "snd_pcm_hw_params", format: format) }
        rc = snd_pcm_hw_params_get_period_size(hw, &period, &dir)
        guard rc >= 0 else { throw fail(rc, "snd_pcm_hw_params_get_period_size") }
        rc = snd_pcm_hw_params_get_buffer_size(hw, &buffer)
        guard rc >= 0 else { throw fail(rc, "snd_pcm_hw_params_get_buffer_size") }

        var swp: OpaquePointer?
        rc = tk_snd_pcm_sw_params_current_malloc(pcm, &swp)
        guard rc >= 0, let sw = swp else { throw fail(rc, "snd_pcm_sw_params_current") }
        defer { snd_pcm_sw_params_free(sw) }
        let start: snd_pcm_uframes_t = direction == .playback ? min(buffer, 2 * period) : 1
        rc = snd_pcm_sw_params_set_start_threshold(pcm, sw, start)
        guard rc >= 0 else { throw fail(rc, "snd_pcm_sw_params_set_start_threshold") }
        rc = snd_pcm_sw_params_set_avail_min(pcm, sw, period)
        guard rc >= 0 else { throw fail(rc, "snd_pcm_sw_params_set_avail_min") }
        rc = snd_pcm_sw_params(pcm, sw)
        guard rc >= 0 else { throw fail(rc, "snd_pcm_sw_params") }
        return Geometry(periodFrames: Int(period), bufferFrames: Int(buffer))
    }

    /// Gets the stream ready to run (after configuration, a stop or an xrun).
    func prepare() throws(ALSAErrno) { try ALSAErrno.check(snd_pcm_prepare(pcm)) }

    /// Starts a prepared stream now (capture does not start by itself until read).
    func start() throws(ALSAErrno) { try ALSAErrno.check(snd_pcm_start(pcm)) }

    /// Stops at once, discarding pending frames (the `file` plugin flushes what was written).
    func drop() { _ = snd_pcm_drop(pcm) }

    /// Waits up to `milliseconds` for a period to be ready. Returns whether one is.
    func wait(milliseconds: Int32) throws(ALSAErrno) -> Bool {
        let rc = snd_pcm_wait(pcm, milliseconds)
        if rc < 0 { throw ALSAErrno(returned: rc) }
        return rc > 0
    }

    /// Reads up to `frames` interleaved frames into `buffer`; blocks until they are all there (or an error).
    @inline(__always)
    func read(into buffer: UnsafeMutableRawPointer, frames: Int) throws(ALSAErrno) -> Int {
        let n = snd_pcm_readi(pcm, buffer, snd_pcm_uframes_t(frames))
        if n < 0 { throw ALSAErrno(returned: n) }
        return n
    }

    /// Writes up to `frames` interleaved frames from `buffer`; blocks until there is room for all (or an error).
    @inline(__always)
    func write(from buffer: UnsafeRawPointer, frames: Int) throws(ALSAErrno) -> Int {
        let n = snd_pcm_writei(pcm, buffer, snd_pcm_uframes_t(frames))
        if n < 0 { throw ALSAErrno(returned: n) }
        return n
    }

    /// Recovers from an xrun or a suspend (re-prepares the stream). Throws the error again if it cannot.
    func recover(from error: ALSAErrno) throws(ALSAErrno) {
        try ALSAErrno.check(snd_pcm_recover(pcm, -error.code, 1))
    }

    /// Frames between the application and the converter: queued to play, or captured and not yet read.
    /// Nil when the stream cannot tell (not running).
    func delay() -> Int? {
        var frames: snd_pcm_sframes_t = 0
        return snd_pcm_delay(pcm, &frames) < 0 ? nil : max(0, frames)
    }
}
