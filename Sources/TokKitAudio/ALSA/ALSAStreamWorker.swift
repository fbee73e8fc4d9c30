import Synchronization

/// One direction of an ALSA device: an open, configured PCM and the per-period transfer between it and the bus,
/// with xrun recovery.
///
/// Per period, capture reads one period from the PCM and writes it to the bus; render reads one period from the
/// bus (silence without a bus) and writes it to the PCM. With ``AudioPacing/device`` it first waits (at most
/// 100 ms, so a stop is never held up by a stalled device) until the PCM has a period ready; with
/// ``AudioPacing/clock`` the side's clock calls it every 10 ms and the blocking calls return at once on plugins
/// that do not pace (`null`, `file`).
///
/// Over- and underruns (`EPIPE`) and suspends (`ESTRPIPE`) are recovered with `snd_pcm_recover` and counted in
/// ``xruns``; any other error stops the side with ``AudioDeviceError/deviceFailed(_:)``.
final class ALSAStreamWorker: AudioSideWorker, @unchecked Sendable {
    let pcm: ALSAPCM
    let format: AudioFormat
    let geometry: ALSAPCM.Geometry
    /// Recovered over- or underruns.
    let xruns = Atomic<Int>(0)
    /// The last `snd_pcm_delay`, in frames.
    let delayFrames = Atomic<Int>(0)

    private let buffer: PeriodBuffer
    private let pacing: AudioPacing
    /// Transfers that ended short (the `file` plugin's input ran out); the rest of the period was silence.
    let shortTransfers = Atomic<Int>(0)

    /// Opens and configures `name` for `format` in 10 ms periods, `periods` periods of buffer.
    init(
        name: String, direction: ALSAPCM.Direction, format: AudioFormat, periods: Int, pacing: AudioPacing,
        configuration: ALSAConfiguration?
    ) throws(AudioDeviceError) {
        guard format.isSupported else { throw .unsupportedFormat(format) }
        pcm = try ALSAPCM(name: name, direction: direction, configuration: configuration)
        geometry = try pcm.configure(format: format, periodFrames: format.framesPerPeriod, periods: periods)
        self.format = format
        self.pacing = pacing
        buffer = PeriodBuffer(format: format)
    }

    /// How long the last measured delay lasts.
    var delay: Duration {
        .nanoseconds(Int64(delayFrames.load(ordering: .relaxed)) * 1_000_000_000 / Int64(format.sampleRate))
    }

    func willStart() throws(AudioDeviceError) {
        do throws(ALSAErrno) {
            try pcm.prepare()
            if pcm.direction == .capture { try pcm.start() }
        } catch {
            throw AudioDeviceError(error, operation: "snd_pcm_prepare", device: pcm.name)
        }
        delayFrames.store(0, ordering: .relaxed)
    }

    func didStop() { pcm.drop() }

    func transferPeriod(_ bus: (any AudioBus)?) throws(AudioDeviceError) -> Bool {
        if pacing == .device {
            do throws(ALSAErrno) {
                guard try pcm.wait(milliseconds: 100) else { return false }
            } catch {
                try recover(error, operation: "snd_pcm_wait")
                return false
            }
        }
        if pcm.direction == .capture {
            buffer.silence()   // what a short read leaves is silence, not the previous period
            try transfer()
            bus?.writeCaptureData(buffer.readOnly)
        } else {
            if let bus { bus.readRenderData(buffer.samples) } else { buffer.silence() }
            try transfer()
        }
        delayFrames.store(pcm.delay() ?? 0, ordering: .relaxed)
        return true
    }

    /// Moves the whole period buffer to or from the PCM: a few attempts, recovering xruns in between.
    private func transfer() throws(AudioDeviceError) {
        let base = UnsafeMutableRawPointer(buffer.samples.baseAddress!)
        let frameBytes = buffer.channels * MemoryLayout<Int16>.size
        var done = 0
        for _ in 0..<4 where done < buffer.frames {
            do throws(ALSAErrno) {
                let n = if pcm.direction == .capture {
                    try pcm.read(into: base + done * frameBytes, frames: buffer.frames - done)
                } else {
                    try pcm.write(from: base + done * frameBytes, frames: buffer.frames - done)
                }
                if n == 0 { break }
                done += n
            } catch {
                try recover(error, operation: pcm.direction == .capture ? "snd_pcm_readi" : "snd_pcm_writei")
            }
        }
        if done < buffer.frames { shortTransfers.add(1, ordering: .relaxed) }
    }

    /// Recovers from an xrun or suspend (counted), ignores `EINTR`/`EAGAIN`, fails on anything else.
    private func recover(_ error: ALSAErrno, operation: String) throws(AudioDeviceError) {
        switch error {
        case .interrupted, .wouldBlock:
            return
        case .xrun, .suspended:
            do throws(ALSAErrno) {
                try pcm.recover(from: error)
                // A recovered capture stream is only prepared; it must be started again to produce.
                if pcm.direction == .capture { try pcm.start() }
            } catch {
                throw .deviceFailed("\(pcm.name): \(operation): cannot recover: \(error)")
            }
            xruns.add(1, ordering: .relaxed)
        default:
            throw .deviceFailed("\(pcm.name): \(operation): \(error)")
        }
    }
}
