import Synchronization
import TokKitMedia
import TokKitPeer

/// A publisher's audio path: 48 kHz Int16 capture (mono, or stereo downmixed) → 20 ms frames → Opus, encoded
/// **once** → `sendRTP(.audio, …)` to every attached, connected ``PeerConnection``.
///
/// ## Data plane
/// ``write(_:channels:)`` is called by ``MediaAudioBus`` on the audio device's capture thread, one 10 ms period
/// at a time (any length works). Samples accumulate in a preallocated 20 ms buffer; each full buffer is
/// encoded and sent on that same thread (about 0.3 ms of work per 20 ms). RTP timestamps (48 kHz) are the
/// capture instants of each packet's first sample through ``clockMapping``, the clock the sender reports map
/// (``AudioCaptureClock``: estimated from the promptest handover of the last second, so a device handing periods
/// over late on a loaded machine does not move them), and advance by 960 per packet, sent or not (with
/// ``AudioEncodeSettings/dtx``, silence is mostly not sent), unless the estimate moves more than 5 ms ahead (an
/// overrun lost samples, the device paused: a gap). They never go back: an estimate that moves more than 5 ms
/// behind moves the sender reports' origin instead (``PeerConnection/setSendTimestampOrigin(_:rtpTimestampAtZero:)``). Once a second the Opus in-band FEC is retuned
/// for the worst loss the receivers report (``OpusLossTuning``). Nothing is allocated per packet.
///
/// ## Control
/// ``attach(_:)`` / ``detach(_:)`` at any time, any thread. ``isEnabled`` false (publishAudio = false) drops
/// captured audio without encoding (so does having no peer); the timestamp clock keeps running (RFC 3550 §5.1). ``close()`` detaches
/// everything; later writes are ignored.
///
/// Thread-safe: the encoder state and the peer list are each behind their own lock.
public final class AudioSendPipeline: Sendable {
    /// Samples per channel in one Opus packet: 20 ms at 48 kHz.
    public static let frameLength = 960

    /// The 48 kHz mapping from capture time to RTP timestamp.
    public let clockMapping: RTPClockMapping
    /// What the encoder was built with.
    public let settings: AudioEncodeSettings
    /// The level of the captured audio while ``isEnabled`` (with or without peers); silent otherwise.
    public let level = AudioLevelMeter()

    private let enabled = Atomic<Bool>(true)
    private let closed = Atomic<Bool>(false)
    private let fanOut = PeerFanOut()
    private let encoder: Mutex<AudioEncodeStage>
    private let stats = Mutex(AudioSendStatistics())

    /// Builds the encoder. Throws ``StreamingError/invalidSettings(_:)`` for a bitrate out of range.
    public init(settings: AudioEncodeSettings = AudioEncodeSettings(),
                clockMapping: RTPClockMapping = RTPClockMapping(clockRate: 48_000)) throws(StreamingError) {
        self.clockMapping = clockMapping
        self.settings = settings
        encoder = Mutex(try AudioEncodeStage(clockMapping: clockMapping, settings: settings))
    }

    /// Whether audio is encoded and sent (the publisher's publishAudio).
    public var isEnabled: Bool {
        get { enabled.load(ordering: .relaxed) }
        set { enabled.store(newValue, ordering: .relaxed) }
    }

    /// Sends to `peer` from the first packet after it is connected. Attaching twice does nothing. Throws
    /// ``StreamingError/closed``.
    public func attach(_ peer: PeerConnection) throws(StreamingError) {
        guard try fanOut.attach(peer) else { return }
        // Under the encoder's lock, as ``write(_:channels:)`` moves the origin (to every attached peer, this one
        // included once it is in the fan-out): whichever runs second leaves the current origin.
        encoder.withLock { stage in
            peer.setSendTimestampOrigin(.audio, rtpTimestampAtZero: clockMapping.offset &+ stage.originShift)
        }
    }

    /// Stops sending to `peer`. Unknown peers are ignored.
    public func detach(_ peer: PeerConnection) {
        _ = fanOut.detach(peer)
    }

    /// The peers attached now.
    public var peers: [PeerConnection] { fanOut.peers }

    /// A snapshot of the counters.
    public var statistics: AudioSendStatistics {
        var s = stats.withLock { $0 }
        s.peers = fanOut.count
        (s.packetsSuppressed, s.expectedPacketLoss) = encoder.withLock { ($0.framesSuppressed, $0.expectedPacketLoss) }
        return s
    }

    /// Detaches every peer; later writes are ignored. Idempotent.
    public func close() {
        closed.store(true, ordering: .relaxed)
        _ = fanOut.close()
    }

    /// Takes captured 48 kHz samples, interleaved with `channels` channels (1 or 2; others are ignored), on
    /// the capture thread. Copies them before returning.
    public func write(_ samples: UnsafeBufferPointer<Int16>, channels: Int) {
        guard channels == 1 || channels == 2 else { return }
        let live = fanOut.live(), peers = live.peers
        let metered = enabled.load(ordering: .relaxed) && !closed.load(ordering: .relaxed)
        // Encoded from the attach on, so that the encoder is warm when the first peer connects (a cold Opus
        // encoder fades its first frames in).
        let enabled = metered && live.anyAttached
        if metered { level.record(samples) }
        let frames = samples.count / channels
        stats.withLock { $0.framesCaptured += frames }
        encoder.withLock { stage in
            stage.write(samples, channels: channels, enabled: enabled) { payload, timestamp, marker in
                let (sent, failed) = PeerFanOut.send(.audio, payload: payload, timestamp: timestamp, marker: marker,
                                                     to: peers)
                stats.withLock { s in
                    s.packetsEncoded += 1
                    s.bytesEncoded += UInt64(payload.count)
                    s.packetsSent += sent
                    s.sendErrors += failed
                }
            }
            // The capture estimate moved: the sender reports' origin follows it, at every attached peer, connected
            // or not yet (the change is taken once). Rare, so fanOut.peers' array is allowed here.
            if stage.takeOriginChange() {
                let origin = clockMapping.offset &+ stage.originShift
                for peer in fanOut.peers { peer.setSendTimestampOrigin(.audio, rtpTimestampAtZero: origin) }
            }
            // Once a second: the in-band FEC follows the worst loss the receivers report.
            if stage.lossCheckDue {
                var reports = 0, loss = 0.0
                for peer in peers {
                    let track = peer.statistics(.audio)
                    reports += track.receptionReportsReceived
                    if track.receptionReportsReceived > 0 { loss = max(loss, track.remoteFractionLost) }
                }
                stage.followLoss(reports: reports, loss: loss)
            }
        }
    }
}
