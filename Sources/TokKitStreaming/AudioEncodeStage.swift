import TokKitCodecs
import TokKitMedia

/// An ``AudioSendPipeline``'s encoder state: the 20 ms mono accumulator, the RTP timestamp clock (each packet
/// stamped with its first sample's capture instant as ``AudioCaptureClock`` estimates it from the handovers), the
/// Opus encoder and its output buffer, all preallocated; with DTX, whether the encoder is in a pause.
///
/// Used only under the pipeline's lock (on the capture thread), which is what makes `@unchecked Sendable` sound.
struct AudioEncodeStage: ~Copyable, @unchecked Sendable {
    static let frameLength = AudioSendPipeline.frameLength
    /// How far (in RTP ticks: 5 ms) the running timestamp may be from the capture clock's estimate before a packet
    /// takes the estimate.
    static let tolerance: UInt32 = 240

    let clockMapping: RTPClockMapping
    private let pcm: UnsafeMutableBufferPointer<Int16>
    private let packet: UnsafeMutableRawBufferPointer
    private let encoder: OpusEncoder
    private let dtx: Bool
    private var filled = 0
    /// RTP timestamp of the next packet if it follows on from the last one (960 later), once the first is stamped.
    private var timestamp: UInt32?
    /// What the stream's timestamps are ahead of ``clockMapping`` (RTP ticks, never negative): the backward moves
    /// of the capture estimate that the stream did not follow (``stamp()``). The sender reports' origin is
    /// `clockMapping.offset + originShift`.
    private(set) var originShift: UInt32 = 0
    private var originChanged = false
    /// When each sample handed in was captured.
    private var captureClock = AudioCaptureClock()
    /// The index of `pcm`'s first sample among all samples handed in.
    private var packetStart: Int64 = 0
    /// DTX: the encoder's last frame was silence (a packet of at most 2 bytes, RFC 7587 §3.1.3).
    private var pausing = false
    /// DTX: frames encoded but not sent, because they continued a pause.
    private(set) var framesSuppressed = 0
    /// The in-band FEC's planned loss, following the receivers' reports (``followLoss(reports:loss:)``).
    private var lossTuning: OpusLossTuning
    private var packetsSinceLossCheck = 0
    private var reportsSeen = 0

    /// Throws ``StreamingError/invalidSettings(_:)`` when libopus refuses `settings`.
    /// The capture clock (``MonotonicClock``; a test's own clock makes the timestamps independent of how long
    /// encoding takes).
    private let now: () -> Duration

    init(clockMapping: RTPClockMapping, settings: AudioEncodeSettings,
         now: @escaping () -> Duration = MonotonicClock.now) throws(StreamingError) {
        self.now = now
        try settings.validate()
        do throws(CodecError) {
            encoder = try OpusEncoder(settings: settings.opus)
        } catch {
            throw .invalidSettings("Opus encoder: \(error)")
        }
        dtx = settings.dtx
        lossTuning = OpusLossTuning(percent: settings.opus.expectedPacketLoss)
        self.clockMapping = clockMapping
        pcm = .allocate(capacity: Self.frameLength)
        pcm.initialize(repeating: 0)
        packet = .allocate(byteCount: OpusEncoder.maximumPacketSize, alignment: 16)
    }

    deinit {
        pcm.deallocate()
        packet.deallocate()
    }

    /// Appends `samples` (`channels` interleaved, stereo averaged to mono); calls `send` with each complete
    /// encoded packet to send, its RTP timestamp and whether it starts a talkspurt (the RTP marker). When
    /// `enabled` is false the samples only advance the clock. The clock is read once, when the samples are handed in:
    /// the time spent encoding the first frames of a long write is not a lateness of the device.
    mutating func write(_ samples: UnsafeBufferPointer<Int16>, channels: Int, enabled: Bool,
                        send: (UnsafeRawBufferPointer, UInt32, Bool) -> Void) {
        let frames = samples.count / channels
        captureClock.handOver(frames, at: now())
        var i = 0
        while i < frames {
            let n = min(frames - i, Self.frameLength - filled)
            if channels == 1 {
                for k in 0..<n { pcm[filled + k] = samples[i + k] }
            } else {
                for k in 0..<n {
                    let l = Int32(samples[2 * (i + k)]), r = Int32(samples[2 * (i + k) + 1])
                    pcm[filled + k] = Int16(truncatingIfNeeded: (l + r) >> 1)
                }
            }
            filled += n
            i += n
            if filled == Self.frameLength {
                let ts = stamp()
                if enabled, let length = encode() {
                    // With DTX, the first silent frame goes out (the receiver learns the pause began), the
                    // rest are held back, and the first frame after them starts a talkspurt.
                    let silent = dtx && length <= 2
                    if silent && pausing {
                        framesSuppressed += 1
                    } else {
                        send(UnsafeRawBufferPointer(rebasing: packet[0..<length]), ts, pausing && !silent)
                        packetsSinceLossCheck += 1
                    }
                    pausing = silent
                }
                timestamp = ts &+ UInt32(Self.frameLength)
                packetStart += Int64(Self.frameLength)
                filled = 0
            }
        }
    }

    /// The RTP timestamp of the packet in `pcm`. Timestamps never go back, and run on by 960 a packet while they stay
    /// within ``tolerance`` of the packet's first sample's capture instant as ``captureClock`` estimates it, plus
    /// ``originShift``: the smallest shift (never negative) that keeps them from going back. When the estimate moves
    /// *behind* the stream (the first handovers were late and a prompter one came, a sound card clock a little
    /// fast), the stream runs on and the shift grows, so that the sender reports, which map capture time to RTP
    /// time, follow the estimate (``AudioSendPipeline`` gives the peers the new origin); when it moves *ahead*
    /// (samples were lost in an overrun, the device paused), the shift shrinks first and only what it cannot take
    /// becomes a forward step (a gap). So a few milliseconds of back and forth under load move the reports' origin
    /// to and fro and leave the stream continuous, and the shift stays within the estimate's largest backward move.
    private mutating func stamp() -> UInt32 {
        let estimate = captureClock.captureTime(ofSample: packetStart).map { clockMapping.timestamp(at: $0) }
        guard let running = timestamp else { return estimate ?? 0 }
        guard let estimate else { return running }
        // How far the running stream is ahead of the estimate itself (no shift).
        let ahead = Int32(bitPattern: running &- estimate)
        let tolerance = Int32(Self.tolerance)
        if ahead < 0 {
            // The estimate is ahead of the stream: no shift is needed any more, and past the tolerance a gap.
            setOriginShift(0)
            return ahead < -tolerance ? estimate : running
        }
        if (ahead - Int32(bitPattern: originShift)).magnitude > Self.tolerance { setOriginShift(UInt32(ahead)) }
        return running
    }

    private mutating func setOriginShift(_ shift: UInt32) {
        guard shift != originShift else { return }
        originShift = shift
        originChanged = true
    }

    /// Takes the news that ``originShift`` changed since the last call (the peers' sender-report origin must follow).
    mutating func takeOriginChange() -> Bool {
        defer { originChanged = false }
        return originChanged
    }

    /// The loss, in percent, the encoder's in-band FEC is planned for now.
    var expectedPacketLoss: Int { lossTuning.percent }

    /// Whether a second of audio (50 packets) went out since the receivers' reports were last looked at.
    var lossCheckDue: Bool { packetsSinceLossCheck >= 50 }

    /// Takes the receivers' reception reports so far (`reports`, summed over peers) and the highest loss fraction
    /// they reported (`loss`, 0...1): when reports are new since the last look, the FEC follows the loss.
    mutating func followLoss(reports: Int, loss: Double) {
        packetsSinceLossCheck = 0
        guard reports != reportsSeen else { return }
        reportsSeen = reports
        if let percent = lossTuning.update(reportedLoss: loss) { try? encoder.setExpectedPacketLoss(percent) }
    }

    /// Encodes the full accumulator into `packet`; returns the length, nil on encoder error.
    private func encode() -> Int? {
        do throws(CodecError) {
            return try encoder.encode(UnsafeBufferPointer(pcm), into: packet)
        } catch {
            return nil
        }
    }
}
