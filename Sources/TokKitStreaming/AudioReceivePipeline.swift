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
/// it is there, or Opus packet-loss concealment otherwise (TokKitRTP's ``AudioJitterBuffer``: 40 ms target). With
/// RFC 2198 redundancy negotiated (``PeerConnection/audioRedundancyPayloadTypes``), each packet's redundant block (a
/// copy of the packet before) fills the place of that packet when it was lost, and is decoded as it would have
/// been: a recovery, not concealment. A malformed RED payload is counted and dropped. Nothing is allocated per
/// packet.
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
    /// Lip sync: the video this audio follows, the state machine, what was played last; used on the render thread.
    private struct Sync: Sendable {
        weak var video: VideoReceivePipeline?
        var machine = AudioVideoSync()
        var lastPlayed: AudioVideoSync.Playout?
        var reads = 0
    }
    private let sync = Mutex(Sync())
    /// Reads (10 ms periods) between two lip sync measurements: twice a second.
    static let syncInterval = 50

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

    /// Makes this audio follow `video`'s playout delay (lip sync, ``AudioVideoSync``: both streams' sender reports
    /// place what each played on the publisher's clock; the audio waits as long as the video plays later). nil
    /// stops following and takes the extra delay off.
    public func synchronize(with video: VideoReceivePipeline?) {
        sync.withLock { s in
            s.video = video
            s.machine.reset()
        }
        if video == nil { jitter.withLock { $0.buffer.setExtraDelay(packets: 0) } }
    }

    /// The extra delay the audio plays with to follow the video (zero without ``synchronize(with:)``), and the last
    /// lag measured (video behind audio before it; nil before a measurement).
    public var synchronization: (delay: Duration, lag: Duration?) {
        sync.withLock { ($0.machine.delay, $0.machine.lastLag) }
    }

    /// The last packet played and when (tests: lip sync checked against the sender's own clock mapping).
    var lastPlayed: AudioVideoSync.Playout? { sync.withLock { $0.lastPlayed } }

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
        // RFC 2198 redundancy (negotiated): the primary block is the packet's Opus payload, the redundant blocks
        // copies of the packets before it, stored only where those are missing.
        // (A payload-less packet, e.g. Chromium's padding, goes the plain way: dropped, not malformed.)
        if !payload.isEmpty, let types = peer.audioRedundancyPayloadTypes, packet.payloadType == types.red {
            var accepted = false, malformed = false
            jitter.withLock { j in
                do throws(RTPError) {
                    try REDPayload.forEachBlock(in: payload) { block in
                        guard !block.bytes.isEmpty, block.payloadType == types.opus else { return }
                        if block.distance == 0 {
                            let result = try? j.buffer.insert(sequenceNumber: sequenceNumber, timestamp: timestamp,
                                                              payload: block.bytes)
                            accepted = result == .stored || result == .resynchronized
                        } else if block.timestampOffset
                                    == UInt32(block.distance) &* Self.samplesPerPacket {
                            // Only a copy whose timestamp is that of the packet `distance` before (a sender that
                            // skipped a packet in its history, as WebRTC's does after a large one, sends an older
                            // copy: not put in the wrong place).
                            _ = try? j.buffer.insertRedundant(
                                sequenceNumber: sequenceNumber &- UInt16(truncatingIfNeeded: block.distance),
                                timestamp: timestamp &- block.timestampOffset, payload: block.bytes)
                        }
                    }
                } catch {
                    malformed = true
                }
            }
            stats.withLock { s in
                s.packetsReceived += 1
                s.redundantPacketsReceived += 1
                if malformed { s.malformedRedundantPackets += 1 }
                if !accepted { s.packetsDropped += 1 }
            }
            return
        }
        let accepted = jitter.withLock { j in
            let result = try? j.buffer.insert(sequenceNumber: sequenceNumber, timestamp: timestamp, payload: payload)
            return result == .stored || result == .resynchronized
        }
        stats.withLock { s in
            s.packetsReceived += 1
            if !accepted { s.packetsDropped += 1 }
        }
    }

    /// The RTP timestamp step of one packet the jitter buffer plays (its frame on the 48 kHz Opus clock: 960).
    private static let samplesPerPacket = UInt32(AudioJitterBuffer.Configuration().frameDuration / .milliseconds(1) * 48)

    // MARK: - Render thread (called by AudioMixer)

    /// Writes the next `output.count` mono 48 kHz samples; returns false (and writes nothing) when there is
    /// nothing to play.
    func read(into output: UnsafeMutableBufferPointer<Int16>) -> Bool {
        guard isEnabled, !isClosed else { return false }
        var decoded = 0, recovered = 0, fromRedundancy = 0, concealed = 0, failed = 0, held = 0
        var played: UInt32?
        let audible = decoder.withLock { stage in
            stage.read(into: output) { decode in
                jitter.withLock { j in
                    switch j.buffer.pop() {
                    case .packet(let packet):
                        played = packet.timestamp
                        if !decode(packet.bytes, false) {
                            failed += 1
                        } else if packet.isRedundant {
                            recovered += 1  // its own packet was lost: decoded from the next one's RED block
                            fromRedundancy += 1
                        } else {
                            decoded += 1
                        }
                    case .missing(_, let following):
                        let next = following?.bytes ?? UnsafeRawBufferPointer(start: nil, count: 0)
                        if decode(next, true) {
                            if OpusPacket.hasRedundancy(next) { recovered += 1 } else { concealed += 1 }
                        }
                    case .hold:
                        // Lip sync adds 20 ms: Opus concealment continues the sound, the next packet waits.
                        if decode(UnsafeRawBufferPointer(start: nil, count: 0), true) { held += 1 }
                    case .empty:
                        break
                    }
                }
            }
        }
        if audible { level.record(UnsafeBufferPointer(output)) }
        followVideo(played: played)
        stats.withLock { s in
            s.packetsDecoded += decoded
            s.packetsRecovered += recovered
            s.packetsRecoveredFromRedundancy += fromRedundancy
            s.packetsConcealed += concealed
            s.packetsDropped += failed
            s.packetsHeldForSync += held
            if audible { s.periodsMixed += 1 }
        }
        return audible
    }

    /// Lip sync on the render thread: notes what was played now, and twice a second measures against the video's
    /// last rendered frame and moves the jitter buffer's extra delay.
    private func followVideo(played: UInt32?) {
        let now = MonotonicClock.now()
        let due: VideoReceivePipeline? = sync.withLock { s in
            if let played { s.lastPlayed = AudioVideoSync.Playout(rtpTimestamp: played, playedAt: now) }
            s.reads += 1
            guard s.reads >= Self.syncInterval, let video = s.video else { return nil }
            s.reads = 0
            return video
        }
        guard let video = due else { return }
        let frame = video.statistics.lastRenderedFrame
        let (audioReport, videoReport) = (peer.remoteSenderReport(.audio), peer.remoteSenderReport(.video))
        let (changed, delay, lag): (Duration?, Duration, Duration?) = sync.withLock { s in
            let changed = s.machine.update(
                audio: s.lastPlayed,
                // When the frame was due, not when it rendered: a frame that completed late (a repair, a key frame
                // behind a bottleneck) does not pull the audio after it; the video's playout delay does.
                video: frame.map { AudioVideoSync.Playout(rtpTimestamp: $0.rtpTimestamp, playedAt: $0.scheduledAt) },
                audioReport: audioReport, videoReport: videoReport, now: now)
            return (changed, s.machine.delay, s.machine.lastLag)
        }
        stats.withLock { s in
            s.syncDelay = delay
            s.syncLag = lag
        }
        guard changed != nil else { return }
        let packets = Int(delay / .milliseconds(20))
        jitter.withLock { $0.buffer.setExtraDelay(packets: packets) }
    }
}
