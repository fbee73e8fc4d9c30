import Synchronization
import TokKitCodecs
import TokKitMedia
import TokKitPeer
import TokKitRTP

/// A subscriber's audio path: the ``PeerConnection``'s `.audio` RTP → a jitter buffer; decoded on demand by
/// the ``AudioMixer`` on the audio device's render thread.
///
/// ## Data plane
/// The receive handler (the peer's network thread) copies each Opus payload into the lock-guarded,
/// preallocated jitter buffer. Every 10 ms the mixer asks for one period: the pipeline decodes the next 20 ms
/// packet and serves it in two halves; a missing packet is concealed with the next packet's in-band FEC when
/// it is there, or Opus packet-loss concealment otherwise (TokKitRTP's ``AudioJitterBuffer``: 40 ms target). Nothing is allocated per packet.
///
/// ## Control
/// Add it to a mixer (``AudioMixer/add(_:)``) to hear it. ``isEnabled`` false (subscribeToAudio = false)
/// drops incoming packets and yields silence. ``close()`` removes the receive handler; remove it from the
/// mixer too.
///
/// Thread-safe: the jitter buffer and the decoder are each behind their own lock.
public final class AudioReceivePipeline: Sendable {
    /// The peer whose audio this pipeline decodes.
    public let peer: PeerConnection
    /// The level of the decoded audio as it is mixed; silent while nothing plays (disabled, no packets).
    public let level = AudioLevelMeter()

    private let enabledFlag = Atomic<Bool>(true)
    private let closedFlag = Atomic<Bool>(false)
    private let stats = Mutex(AudioReceiveStatistics())
    private let jitter: Mutex<Playout>

    /// Lets the jitter buffer live in a `Mutex`; only ever used under that lock, hence `@unchecked Sendable`.
    private struct Playout: ~Copyable, @unchecked Sendable {
        let buffer: AudioJitterBuffer
    }
    private let decoder: Mutex<AudioDecodeStage>

    /// Installs itself as `peer`'s `.audio` receive handler.
    public init(peer: PeerConnection) {
        self.peer = peer
        do throws(RTPError) { jitter = Mutex(Playout(buffer: try AudioJitterBuffer())) } catch {
            preconditionFailure("the default jitter buffer configuration is valid: \(error)")
        }
        decoder = Mutex(AudioDecodeStage())
        peer.setReceiveHandler(.audio) { [weak self] packet in self?.receive(packet) }
    }

    /// Whether audio is decoded and mixed (the subscriber's subscribeToAudio).
    public var isEnabled: Bool {
        get { enabledFlag.load(ordering: .acquiring) }
        set { enabledFlag.store(newValue, ordering: .releasing) }
    }

    /// Whether ``close()`` was called.
    public var isClosed: Bool { closedFlag.load(ordering: .acquiring) }

    /// A snapshot of the counters.
    public var statistics: AudioReceiveStatistics { stats.withLock { $0 } }

    /// Removes the receive handler; the mixer then gets silence from this pipeline. Idempotent.
    public func close() {
        guard !closedFlag.exchange(true, ordering: .acquiringAndReleasing) else { return }
        peer.setReceiveHandler(.audio, nil)
    }

    // MARK: - Network thread

    private func receive(_ packet: borrowing RTPPacketView) {
        guard isEnabled else {
            stats.withLock { $0.packetsDropped += 1 }
            return
        }
        let (sequenceNumber, timestamp, payload) = (packet.sequenceNumber, packet.timestamp, packet.payload)
        let accepted = jitter.withLock { j in
            let result = try? j.buffer.insert(sequenceNumber: sequenceNumber, timestamp: timestamp, payload: payload)
            return result == .stored || result == .resynchronized
        }
        stats.withLock { s in
            s.packetsReceived += 1
            if !accepted { s.packetsDropped += 1 }
        }
    }

    // MARK: - Render thread (called by AudioMixer)

    /// Writes the next `output.count` mono 48 kHz samples; returns false (and writes nothing) when there is
    /// nothing to play.
    func read(into output: UnsafeMutableBufferPointer<Int16>) -> Bool {
        guard isEnabled, !isClosed else { return false }
        var decoded = 0, recovered = 0, concealed = 0, failed = 0
        let audible = decoder.withLock { stage in
            stage.read(into: output) { decode in
                jitter.withLock { j in
                    switch j.buffer.pop() {
                    case .packet(let packet):
                        if decode(packet.bytes, false) { decoded += 1 } else { failed += 1 }
                    case .missing(_, let following):
                        let next = following?.bytes ?? UnsafeRawBufferPointer(start: nil, count: 0)
                        if decode(next, true) {
                            if OpusPacket.hasRedundancy(next) { recovered += 1 } else { concealed += 1 }
                        }
                    case .empty:
                        break
                    }
                }
            }
        }
        if audible { level.record(UnsafeBufferPointer(output)) }
        stats.withLock { s in
            s.packetsDecoded += decoded
            s.packetsRecovered += recovered
            s.packetsConcealed += concealed
            s.packetsDropped += failed
            if audible { s.periodsMixed += 1 }
        }
        return audible
    }
}
