import Synchronization
@_spi(Testing) import TokKitDTLS
import TokKitICE
import TokKitRTP
import TokKitSDP
import TokKitSRTP

/// A WebRTC peer connection for TokKit's media: one BUNDLEd, rtcp-muxed DTLS-SRTP transport (``ICEAgent`` +
/// ``DTLSTransport``) carrying at most one Opus audio and one VP8 video section, negotiated by JSEP offer/answer.
///
/// Signalling: the offerer calls ``createOffer()`` (it becomes ICE controlling, `a=setup:actpass`) and later
/// ``setRemoteDescription(_:)`` with the answer; the answerer calls ``createAnswer(for:)`` (ICE controlled,
/// `a=setup:active`, RFC 5763). Local candidates arrive as ``PeerConnectionEvent/localCandidate(_:)`` events
/// (trickle); the peer's go to ``addRemoteCandidate(_:)``. The peer's certificate must match the fingerprint of
/// its SDP, else the connection ends in ``PeerConnectionState/failed`` with no keys: nothing is sent or accepted.
///
/// Media: ``sendRTP(_:payload:timestamp:marker:)`` writes the RTP header (negotiated SSRC, payload type, next
/// sequence number) into the section's preallocated buffer, protects it with SRTP and sends it. Received SRTP is
/// decrypted, demultiplexed by SSRC (or payload type until the SSRC is known) and given to the section's
/// receive handler. RTCP SR/RR are sent every ``PeerConfiguration/rtcpInterval`` and, with it, also right after
/// each section's first packet (or on ``sendReports()``); received reports feed ``statistics(_:)`` (loss, jitter, round-trip time from LSR/DLSR).
///
/// Feedback: the core above hands every packet sent and received, every RTCP packet and its timers to feedback
/// units (``FeedbackUnit``, in the way pion's interceptors work), each a value-type state machine under its own lock:
/// - ``NACKRequester`` NACKs gaps in the peer's video sequence numbers at once, 10 times 20 ms apart, then every
///   100 ms, 14 requests in all;
/// - ``NACKResponder`` keeps our last 512 video packets and sends again those the peer NACKs (while the path is
///   congested, one packet at most once a round trip; within the path's estimate, or while it is overloaded within
///   the room beside the media, nothing from before the last key frame, and a key frame instead of a repair held
///   back);
/// - ``RTCPReporter`` writes SR/RR every ``PeerConfiguration/rtcpInterval`` (or on ``sendReports()``) and reads the
///   peer's: loss, jitter, round-trip time from LSR/DLSR (``statistics(_:)``);
/// - ``KeyframeRequestRouter`` gives PLI, new FIR and REMB about our streams to the section's feedback handler
///   (``setFeedbackHandler(_:_:)``) and sends our PLIs (``requestKeyframe()``);
/// - transport-wide congestion control (draft-holmer-rmcat-transport-wide-cc-extensions-01), unless
///   ``PeerConfiguration/transportFeedbackInterval`` is nil: ``TransportFeedback`` records the arrival of the peer's
///   packets and reports them every interval, so the peer's bandwidth estimator (Chromium's) can ramp up;
///   ``TransportCongestionControl`` numbers every RTP packet we send (audio, video, retransmissions) with one 16-bit
///   transport-wide counter and turns the peer's feedback into a send-side bandwidth estimate (draft-ietf-rmcat-gcc-02,
///   bounded by ``PeerConfiguration/bandwidthEstimateBounds``), whose video share (what the audio and the retransmissions
///   leave) is reported to the video feedback handler as ``RTCPFeedback/sendSideEstimatedBitrate(_:)``.
///   ``transportFeedbackStatistics`` counts both directions.
/// The units read no clock: the connection passes them the time of its ``PeerClock``.
///
/// Events: ``events`` carries trickled candidates, state changes and, once per received section,
/// ``PeerConnectionEvent/firstMediaPacket(_:)`` when the peer's media first arrives.
///
/// Threading: every method may be called from any thread. Signalling state is guarded by one lock with an
/// explicit state enum; ICE/DTLS events are followed by one task each. ``sendRTP(_:payload:timestamp:marker:)``
/// runs on the caller's (media) thread under that section's lock and allocates nothing. Receive handlers run on
/// the ICE network thread (`networkThreadName`), one call per packet, no task, no allocation; they must not block.
/// Feedback handlers run on the same thread with no lock of the connection held.
///
/// Lock order (a lock is only taken while holding those to its left): `control` → `transport`; `retransmissionLimiter`
/// → a send section (which holds the video ``NACKResponder``) → ``TransportCongestionControl``; `feedbackScratch` →
/// ``TransportFeedback`` and ``TransportCongestionControl``. Every other lock (receive sections, handlers,
/// ``RTCPReporter``, ``KeyframeRequestRouter``, ``NACKRequester``) is taken alone.
public final class PeerConnection: Sendable {
    /// Receives one decrypted RTP packet of a section, on the network thread; valid only during the call.
    public typealias RTPHandler = @Sendable (borrowing RTPPacketView) -> Void
    /// Receives RTCP feedback about one of our sections, on the network thread; must not block.
    public typealias FeedbackHandler = @Sendable (RTCPFeedback) -> Void

    /// The local media and network configuration.
    public let configuration: PeerConfiguration
    /// The time the connection and its feedback units run on.
    public let clock: PeerClock
    /// Our DTLS identity; its fingerprint is in our descriptions.
    public let certificate: DTLSCertificate
    /// Candidates and state changes, in order. Finishes after ``close()``.
    public let events: AsyncStream<PeerConnectionEvent>

    private let continuation: AsyncStream<PeerConnectionEvent>.Continuation
    private let control = Mutex(Control())
    private let transport = Mutex<DTLSTransport?>(nil)
    private let audioSend = Mutex<SendTrack?>(nil)
    private let videoSend = Mutex<SendTrack?>(nil)
    /// Simulcast: the smaller video layers' tracks, smallest first (``PeerConfiguration/videoSimulcastSSRCs``),
    /// once negotiated; the full-size layer is ``videoSend``. One lock: one encode thread sends them all.
    private let videoLayerSend = Mutex<[SendTrack]>([])
    private let audioReceive = Mutex<ReceiveTrack?>(nil)
    private let videoReceive = Mutex<ReceiveTrack?>(nil)
    // Handlers sit in non-generic structs: a bare closure in a `Mutex` gained two reabstraction thunks at every
    // read under the lock, so per-packet reads made each delivery slower than the last (see ICEAgentCore.Receiver).
    private struct RTPReceiver: Sendable { let handler: RTPHandler }
    private struct FeedbackReceiver: Sendable { let handler: FeedbackHandler }
    private let audioHandler = Mutex<RTPReceiver?>(nil)
    private let videoHandler = Mutex<RTPReceiver?>(nil)
    private let audioFeedback = Mutex<FeedbackReceiver?>(nil)
    private let videoFeedback = Mutex<FeedbackReceiver?>(nil)

    // MARK: Feedback units (Feedback/), each under its own lock.
    private let reporter: Mutex<RTCPReporter>
    private let router: Mutex<KeyframeRequestRouter>
    /// Video only, once negotiated (the ``NACKResponder`` lives in the video ``SendTrack``).
    private let nackRequester = Mutex<NACKRequester?>(nil)
    /// Transport-wide CC, once negotiated.
    private let transportFeedback = Mutex<TransportFeedback?>(nil)
    private let transportCongestion = Mutex<TransportCongestionControl?>(nil)
    /// Holds the copies of every video stream we send (simulcast layers too) to one rate, as libwebrtc's one
    /// limiter per transport does; taken before a send section's lock, never inside one.
    private let retransmissionLimiter = Mutex(RetransmissionRateLimiter())
    /// The peer's transport-wide feedback is decoded into this one value (network thread; its status storage is
    /// reused, so decoding allocates nothing once it has grown).
    private let feedbackScratch = Mutex(RTCPTransportWideFeedback(senderSSRC: 0, mediaSSRC: 0, baseSequenceNumber: 0,
                                                                  referenceTime: 0, feedbackPacketCount: 0,
                                                                  statuses: []))
    /// Test hook: returns true for an outgoing video sequence number that should be "lost" (kept in the send
    /// history, not sent), to exercise NACK and retransmission. Installed with ``setOutgoingVideoLoss(_:)``.
    typealias OutgoingLoss = @Sendable (_ sequenceNumber: UInt16) -> Bool
    private struct OutgoingLossBox: Sendable { let loss: OutgoingLoss }
    private let outgoingVideoLoss = Mutex<OutgoingLossBox?>(nil)
    /// Test hook (loss injection): returns true for a received RTP packet (SSRC, sequence number, read from the
    /// clear header before SRTP) that should be "lost". Installed with ``setIncomingLoss(_:)``.
    typealias IncomingLoss = @Sendable (_ ssrc: UInt32, _ sequenceNumber: UInt16) -> Bool
    private struct IncomingLossBox: Sendable { let loss: IncomingLoss }
    private let incomingLoss = Mutex<IncomingLossBox?>(nil)
    /// Monotonic nanoseconds of the last packet received from the peer (0: none yet); written by the network thread.
    private let lastPacketArrival = Atomic<UInt64>(0)

    /// Signalling and connection state.
    private struct Control: ~Copyable {
        enum Signaling { case stable, haveLocalOffer, negotiated }
        var state: PeerConnectionState = .new
        var signaling: Signaling = .stable
        var ice: ICEAgent?
        var tasks: [Task<Void, Never>] = []
        var localOffer: SessionDescription?
        /// An agent is being made (outside the lock).
        var startingICE = false
        /// ``close()`` ran (the state may already be closed by the peer's close_notify).
        var released = false
        /// Why the state became failed.
        var failure: PeerError?
    }

    /// Creates an idle connection with a fresh certificate; nothing touches the network before
    /// ``createOffer()`` or ``createAnswer(for:)``. `clock` is the time of its RTCP and feedback (``PeerClock/system``;
    /// ICE and DTLS keep real time whatever it is).
    public init(configuration: PeerConfiguration = PeerConfiguration(), clock: PeerClock = .system) throws(PeerError) {
        self.configuration = configuration
        self.clock = clock
        let feedbackSSRC = configuration.videoSSRC ?? configuration.audioSSRC ?? 1
        reporter = Mutex(RTCPReporter(clock: clock,
                                      reporterSSRC: configuration.audioSSRC ?? configuration.videoSSRC ?? 1))
        router = Mutex(KeyframeRequestRouter(senderSSRC: feedbackSSRC))
        do throws(DTLSError) { certificate = try DTLSCertificate() } catch { throw .dtls(error) }
        (events, continuation) = AsyncStream.makeStream(of: PeerConnectionEvent.self)
    }

    deinit { close() }

    /// The current state.
    public var state: PeerConnectionState { control.withLock { $0.state } }

    /// The name of the network thread running ICE, DTLS, SRTP unprotect and the receive handlers, once
    /// negotiation started.
    public var networkThreadName: String? { control.withLock { $0.ice?.networkThreadName } }

    /// Why DTLS failed, if it did.
    public var transportFailure: DTLSError? { transport.withLock { $0 }?.failure }

    /// Why the connection failed, once ``state`` is ``PeerConnectionState/failed``: ``PeerError/ice(_:)`` with
    /// ``ICEError/connectivityFailed`` when ICE found no working path, ``PeerError/dtls(_:)`` with the handshake's
    /// error (a fingerprint mismatch, a failed handshake) when DTLS failed.
    public var failure: PeerError? { control.withLock { $0.failure } }

    /// The negotiated SRTP profile, once connected.
    public var srtpProfile: SRTPProfile? { transport.withLock { $0 }?.srtpProfile }

    /// How long the DTLS handshake took (from its start, once ICE connected, to the keys), once connected.
    public var dtlsHandshakeDuration: Duration? { transport.withLock { $0 }?.handshakeDuration }

    /// How long since the last SRTP or SRTCP packet from the peer arrived (authenticated), or nil if none has.
    /// Both ends send RTCP at least every ``PeerConfiguration/rtcpInterval`` while connected, so a silence of a few
    /// intervals means the path is gone (as WebRTC's "not receiving" after 2.5 s). Any thread.
    public var timeSinceLastPacket: Duration? {
        let last = lastPacketArrival.load(ordering: .relaxed)
        guard last != 0 else { return nil }
        let now = clock.now()
        return .nanoseconds(Int64(clamping: now &- min(last, now)))
    }

    /// The path media takes (the ICE pair selected), once connected; nil before.
    public var selectedCandidatePair: ICECandidatePair? { control.withLock { $0.ice }?.selectedPair }

    // MARK: - Signalling

    /// Starts ICE as the controlling agent and returns the offer: audio (mid 0) and video (mid 1), BUNDLE,
    /// `setup:actpass`, trickle; each section's direction follows the configuration's SSRC and `receives…` flag
    /// (``PeerConfiguration/receivesAudio``). Throws ``PeerError/invalidState(_:)`` unless the connection is new.
    public func createOffer() throws(PeerError) -> SessionDescription {
        let ice = try startICE(role: .controlling)
        let options = try localOptions(ice)
        let offer: SessionDescription
        do throws(SDPError) { offer = try SessionDescription.offer(options) } catch { throw .sdp(error) }
        control.withLock { c in
            c.localOffer = offer
            c.signaling = .haveLocalOffer
        }
        return offer
    }

    /// Starts ICE as the controlled agent, applies `offer` and returns the answer (`setup:active` for an
    /// `actpass` offer, RFC 5763 §5). Throws ``PeerError/invalidState(_:)`` unless the connection is new.
    public func createAnswer(for offer: SessionDescription) throws(PeerError) -> SessionDescription {
        let ice = try startICE(role: .controlled)
        let options = try localOptions(ice)
        let answer: SessionDescription
        do throws(SDPError) {
            answer = try SessionDescription.answer(to: offer, options)
        } catch {
            fail(.sdp(error))
            throw .sdp(error)
        }
        do throws(PeerError) {
            try apply(remote: offer, answer: answer, local: answer, ice: ice)
        } catch {
            fail(error)
            throw error
        }
        return answer
    }

    /// Applies the peer's answer to our offer. Throws ``PeerError/invalidState(_:)`` without a pending offer,
    /// ``PeerError/invalidRemoteDescription(_:)`` when it lacks credentials, fingerprint or a compatible setup.
    public func setRemoteDescription(_ answer: SessionDescription) throws(PeerError) {
        let pending: (ICEAgent, SessionDescription)? = control.withLock { c in
            guard c.signaling == .haveLocalOffer, let ice = c.ice, let offer = c.localOffer else { return nil }
            c.signaling = .negotiated
            return (ice, offer)
        }
        guard let (ice, offer) = pending else { throw .invalidState("no local offer pending") }
        do throws(PeerError) {
            try apply(remote: answer, answer: answer, local: offer, ice: ice)
        } catch {
            fail(error)
            throw error
        }
    }

    /// Adds one trickled remote candidate (`candidate:…`, with or without `a=`).
    public func addRemoteCandidate(_ candidate: String) throws(PeerError) {
        guard let ice = control.withLock({ $0.ice }) else { throw .invalidState("no ICE agent yet") }
        do throws(ICEError) { try ice.addRemoteCandidate(candidate) } catch { throw .ice(error) }
    }

    /// The peer signalled end-of-candidates.
    public func addRemoteEndOfCandidates() throws(PeerError) {
        guard let ice = control.withLock({ $0.ice }) else { throw .invalidState("no ICE agent yet") }
        do throws(ICEError) { try ice.addRemoteEndOfCandidates() } catch { throw .ice(error) }
    }

    /// Sends close_notify, closes ICE (its network thread is joined, unless called on it), drops keys and
    /// buffers, reports ``PeerConnectionState/closed`` and finishes ``events``. Idempotent.
    public func close() {
        let taken: (ICEAgent?, [Task<Void, Never>], Bool)? = control.withLock { c in
            guard !c.released else { return nil }
            c.released = true
            let changed = c.state != .closed
            c.state = .closed
            defer { c.ice = nil; c.tasks = [] }
            return (c.ice, c.tasks, changed)
        }
        guard let (ice, tasks, changed) = taken else { return }
        let dtls = transport.withLock { t in defer { t = nil }; return t }
        dtls?.close()
        ice?.close()
        for task in tasks { task.cancel() }
        audioHandler.withLock { $0 = nil }
        videoHandler.withLock { $0 = nil }
        audioFeedback.withLock { $0 = nil }
        videoFeedback.withLock { $0 = nil }
        audioSend.withLock { t in t?.deallocate(); t = nil }
        videoSend.withLock { t in t?.deallocate(); t = nil }
        videoLayerSend.withLock { tracks in
            for t in tracks { t.deallocate() }
            tracks = []
        }
        if changed { continuation.yield(.stateChanged(.closed)) }
        continuation.finish()
    }

    // MARK: - Media

    /// Sets the handler for the peer's RTP on the `kind` section (network thread). `nil` drops packets
    /// (they are still counted).
    public func setReceiveHandler(_ kind: MediaKind, _ handler: RTPHandler?) {
        switch kind {
        case .audio: audioHandler.withLock { $0 = handler.map(RTPReceiver.init) }
        case .video: videoHandler.withLock { $0 = handler.map(RTPReceiver.init) }
        }
    }

    /// Sets the handler for RTCP feedback about our stream on the `kind` section (network thread): PLI and new
    /// FIR (send a key frame), REMB (video). `nil` ignores them. NACKs are handled inside.
    public func setFeedbackHandler(_ kind: MediaKind, _ handler: FeedbackHandler?) {
        switch kind {
        case .audio: audioFeedback.withLock { $0 = handler.map(FeedbackReceiver.init) }
        case .video: videoFeedback.withLock { $0 = handler.map(FeedbackReceiver.init) }
        }
    }

    /// Sends a picture loss indication (RFC 4585 §6.3.1) about the peer's video stream now: the peer should send
    /// a key frame. Throws ``PeerError/notConnected`` before DTLS-SRTP is up, ``PeerError/noSuchTrack(_:)`` when
    /// we receive no video or do not know its SSRC yet. Allocates nothing; callers rate-limit (a frame assembler
    /// asks at most every few hundred milliseconds).
    public func requestKeyframe() throws(PeerError) {
        guard let dtls = transport.withLock({ $0 }), dtls.state == .connected else { throw .notConnected }
        guard let media = withReceive(.video, { $0?.ssrc }) else { throw .noSuchTrack(.video) }
        var output = Output(connection: self, dtls: dtls, now: clock.now())
        router.withLock { $0.requestKeyframe(mediaSSRC: media, output: &output) }
        if let failure = output.failure { throw .dtls(failure) }
    }

    /// Transport-wide congestion control feedback counters (``TransportFeedbackStatistics/extensionID`` is nil
    /// when it was not negotiated).
    public var transportFeedbackStatistics: TransportFeedbackStatistics {
        var s = transportFeedback.withLock { $0?.statistics } ?? TransportFeedbackStatistics()
        transportCongestion.withLock { state in
            guard let state else { return }
            s.packetsStamped = state.packetsStamped
            s.estimatedBitrate = state.estimate
        }
        return s
    }

    /// The send-side bandwidth estimate in bits per second (draft-ietf-rmcat-gcc-02) from the peer's transport-wide
    /// feedback about our packets; nil before the first such feedback or without transport-cc.
    public var bandwidthEstimate: Int? { transportCongestion.withLock { $0?.estimate } }

    /// The RFC 2198 `red` payload type negotiated for the peer's audio (``PeerConfiguration/audioRedundancy`` on
    /// both ends) and the Opus payload type of its blocks, nil without it: the audio receive handler gets packets of
    /// the `red` type besides plain Opus and splits them (``REDPayload``).
    public var audioRedundancyPayloadTypes: (red: UInt8, opus: UInt8)? {
        withReceive(.audio) { t in t?.redundancyPayloadType.map { ($0, t!.payloadType) } }
    }

    /// Whether our audio goes out with redundancy (negotiated), and how many packets carried a redundant block.
    public var audioRedundancySent: (negotiated: Bool, packetsWithRedundancy: Int) {
        withSend(.audio) { t in (t?.redundancy != nil, t?.redundancy?.packetsWithRedundancy ?? 0) }
    }

    /// The SSRC our feedback packets are sent from.
    private var feedbackSSRC: UInt32 { configuration.videoSSRC ?? configuration.audioSSRC ?? 1 }

    /// The largest payload ``sendRTP(_:payload:timestamp:marker:)`` takes.
    public static let maximumPayloadLength = SendTrack.capacity - RTPPacketView.fixedHeaderLength

    /// Sends one RTP packet on the `kind` section: header with the negotiated SSRC and payload type and the
    /// next sequence number, `payload`, SRTP-protected. Throws ``PeerError/noSuchTrack(_:)`` when we do not
    /// send on that section, ``PeerError/notConnected`` before DTLS-SRTP is up. Allocates nothing.
    public func sendRTP(_ kind: MediaKind, payload: UnsafeRawBufferPointer, timestamp: UInt32,
                        marker: Bool = false) throws(PeerError) {
        guard payload.count <= Self.maximumPayloadLength else { throw .payloadTooLarge(payload.count) }
        guard let dtls = transport.withLock({ $0 }) else { throw .notConnected }
        let now = clock.now()
        let first = try withSend(kind) { (track: inout SendTrack?) throws(PeerError) -> Bool in
            guard track != nil else { throw .noSuchTrack(kind) }
            return try send(on: &track!, payload: payload, timestamp: timestamp, marker: marker, dtls: dtls, now: now)
        }
        // The first sender report goes out with a section's first packet (RFC 3550 §6.2 allows an early first
        // report), not up to a whole interval later: a receiver needs it to place this stream against our others
        // (an archive holds video back until then). Once per section; then the regular interval.
        if first, configuration.rtcpInterval != nil { try? sendReports() }
    }

    /// Simulcast: sends one RTP packet of video layer `layer` (0: the smallest, ``simulcastLayerCount`` − 1: the
    /// full-size one, the same as ``sendRTP(_:payload:timestamp:marker:)`` on `.video`), each layer with its own
    /// SSRC and sequence numbers. Throws ``PeerError/noSuchTrack(_:)`` for a layer not negotiated. Allocates nothing.
    public func sendVideoLayerRTP(_ layer: Int, payload: UnsafeRawBufferPointer, timestamp: UInt32,
                                  marker: Bool = false) throws(PeerError) {
        let smaller = configuration.videoSimulcastSSRCs.count
        guard layer >= 0, layer < smaller else {
            guard layer == smaller else { throw .noSuchTrack(.video) }
            return try sendRTP(.video, payload: payload, timestamp: timestamp, marker: marker)
        }
        guard payload.count <= Self.maximumPayloadLength else { throw .payloadTooLarge(payload.count) }
        guard let dtls = transport.withLock({ $0 }) else { throw .notConnected }
        let now = clock.now()
        try videoLayerSend.withLock { (tracks: inout [SendTrack]) throws(PeerError) in
            guard layer < tracks.count else { throw .noSuchTrack(.video) }
            _ = try send(on: &tracks[layer], payload: payload, timestamp: timestamp, marker: marker, dtls: dtls,
                         now: now)
        }
    }

    /// The number of video layers we send: 1 + the smaller simulcast layers negotiated.
    public var simulcastLayerCount: Int { 1 + videoLayerSend.withLock { $0.count } }

    /// Writes one packet into `t`'s buffer, stamps, keeps and sends it, and counts it (under `t`'s lock); true for
    /// the track's first packet.
    private func send(on t: inout SendTrack, payload: UnsafeRawBufferPointer, timestamp: UInt32, marker: Bool,
                      dtls: DTLSTransport, now: UInt64) throws(PeerError) -> Bool {
        let kind = t.kind
        var payload = payload, payloadType = t.payloadType
        let headerLength = RTPPacketView.fixedHeaderLength + (t.extensions.isEmpty ? 0 : 8)
        if t.redundancy != nil {
            do throws(RTPError) {
                payload = try t.redundancy!.packetize(payload, timestamp: timestamp,
                                                      limit: SendTrack.capacity - headerLength)
            } catch { throw .rtp(error) }
            payloadType = t.redundancy!.redPayloadType
        }
        let header = RTPHeader(marker: marker, payloadType: payloadType, sequenceNumber: t.sequenceNumber,
                               timestamp: timestamp, ssrc: t.ssrc, extensions: t.extensions)
        let length: Int
        do throws(RTPError) {
            length = try header.write(payload: payload, into: UnsafeMutableRawBufferPointer(
                rebasing: t.buffer[0..<SendTrack.capacity]))
        } catch { throw .rtp(error) }
        transportCongestion.withLock { $0?.stamp(kind, length: length, now: now) }?.write(into: t.buffer)
        t.nackResponder?.store(UnsafeRawBufferPointer(rebasing: t.buffer[..<length]), now: now)
        let lost = kind == .video && (outgoingVideoLoss.withLock { $0 }?.loss(header.sequenceNumber) ?? false)
        // The sequence number is used once the packet is made, sent or not: a packet that fails to go out is a loss
        // to the receiver (and a redundant copy of it in the next audio packet still maps to its own number).
        t.sequenceNumber &+= 1
        do throws(DTLSError) {
            if !lost { try dtls.sendRTP(t.buffer, length: length) }
        } catch .notConnected {
            throw .notConnected
        } catch { throw .dtls(error) }
        t.lastTimestamp = timestamp
        t.packets += 1
        t.payloadBytes += UInt64(payload.count)
        return t.packets == 1
    }

    /// Sends one compound RTCP packet now: an SR per sending section (the first carrying a reception report
    /// block per received stream), or an RR when we send nothing. Reduced-size style: no SDES (rtcp-rsize).
    public func sendReports() throws(PeerError) {
        guard let dtls = transport.withLock({ $0 }), dtls.state == .connected else { throw .notConnected }
        for kind in MediaKind.allCases {
            guard let sent = withSend(kind, { t in t.map { ($0.packets, $0.payloadBytes, $0.lastTimestamp) } })
            else { continue }
            reporter.withLock {
                $0.updateSender(kind, packets: sent.0, octets: sent.1, rtpTimestamp: sent.2)
            }
        }
        var output = Output(connection: self, dtls: dtls, now: clock.now())
        reporter.withLock { $0.poll(now: output.now, output: &output) }
        if let failure = output.failure { throw .dtls(failure) }
    }

    /// Tells the connection how our `kind` stream's RTP timestamps relate to the clock it runs on
    /// (``PeerClock``: CLOCK_MONOTONIC for ``PeerClock/system``): the timestamp of a capture at monotonic time `t`
    /// is `rtpTimestampAtZero + t × clockRate` (wrapping). Sender reports then carry the RTP timestamp of their own
    /// instant (RFC 3550 §6.4.1), which a receiver needs to synchronise our audio and video; without it they carry
    /// the last packet's, late by the packet's capture-to-send time.
    public func setSendTimestampOrigin(_ kind: MediaKind, rtpTimestampAtZero: UInt32) {
        reporter.withLock { $0.setSendTimestampOrigin(kind, rtpTimestampAtZero: rtpTimestampAtZero) }
    }

    /// The peer's last RTCP sender report about its `kind` stream (nil before the first): what maps that stream's
    /// RTP timestamps to the peer's wall clock. Allocates nothing.
    public func remoteSenderReport(_ kind: MediaKind) -> RemoteSenderReport? {
        reporter.withLock { $0[receiver: kind]?.lastSenderReportTimes }
    }

    /// The ICE agent's batching sleeps and datagram timing (internal, for tests); nil before the agent exists.
    var iceReceiveStatistics: ICEReceiveStatistics? {
        control.withLock { $0.ice }?.receiveStatistics
    }

    /// A snapshot of the `kind` section's statistics.
    public func statistics(_ kind: MediaKind) -> TrackStatistics {
        var s = TrackStatistics()
        withSend(kind) { track in
            guard let t = track else { return }
            s.packetsSent = t.packets
            s.bytesSent = t.payloadBytes
        }
        if kind == .video {
            videoLayerSend.withLock { tracks in
                for t in tracks {
                    s.packetsSent += t.packets
                    s.bytesSent += t.payloadBytes
                }
            }
        }
        reporter.withLock { reporter in
            if let t = reporter[sender: kind] {
                s.senderReportsSent = t.senderReports
                s.remotePacketsLost = t.remoteLost
                s.remoteFractionLost = Double(t.remoteFractionLost) / 256
                s.remoteJitter = Double(t.remoteJitter) / Double(kind.clockRate)
                s.roundTripTime = t.roundTripTime
                s.receptionReportsReceived = t.receptionReports
            }
            if let r = reporter[receiver: kind] {
                s.packetsReceived = r.packets
                s.bytesReceived = r.payloadBytes
                s.senderReportsReceived = r.senderReports
                if let statistics = r.statistics {
                    s.packetsLost = statistics.cumulativeLost
                    s.jitter = Double(statistics.jitter.value) / Double(kind.clockRate)
                }
            }
        }
        s.keyFrameRequestsReceived = router.withLock { $0.requestsReceived(kind) }
        if kind == .video {
            withSend(.video) { track in
                guard let responder = track?.nackResponder else { return }
                s.packetsRetransmitted = responder.retransmissions
                s.retransmissionsSuppressed = responder.retransmissionsSuppressed
                s.nacksReceived = responder.nacksReceived
            }
            videoLayerSend.withLock { tracks in
                for case let responder? in tracks.map(\.nackResponder) {
                    s.packetsRetransmitted += responder.retransmissions
                    s.retransmissionsSuppressed += responder.retransmissionsSuppressed
                    s.nacksReceived += responder.nacksReceived
                }
            }
            s.nacksSent = nackRequester.withLock { $0?.messagesSent } ?? 0
            s.keyFrameRequestsSent = router.withLock { $0.requestsSent }
        }
        return s
    }

    // MARK: - Negotiation internals

    /// Makes the ICE agent (it resolves ICE server host names: blocking, so with no lock held) and starts
    /// gathering.
    private func startICE(role: ICERole) throws(PeerError) -> ICEAgent {
        let claimed = control.withLock { c in
            guard c.state == .new, c.ice == nil, !c.startingICE else { return false }
            c.startingICE = true
            return true
        }
        guard claimed else { throw .invalidState("negotiation already started") }
        let ice: ICEAgent
        do throws(ICEError) {
            ice = try ICEAgent(role: role, configuration: configuration.ice)
        } catch {
            control.withLock { $0.startingICE = false }
            throw .ice(error)
        }
        let installed = control.withLock { c in
            c.startingICE = false
            guard !c.released else { return false }
            c.ice = ice
            c.tasks.append(Task { [weak self, events = ice.events] in
                for await event in events {
                    guard let self else { return }
                    self.handle(event)
                }
            })
            return true
        }
        guard installed else {
            ice.close()
            throw .invalidState("closed during negotiation")
        }
        do throws(ICEError) { try ice.gatherCandidates() } catch { throw .ice(error) }
        return ice
    }

    private func localOptions(_ ice: ICEAgent) throws(PeerError) -> SDPLocalDescriptionOptions {
        let credentials: ICECredentials
        do throws(ICEError) { credentials = try ice.localCredentials } catch { throw .ice(error) }
        let fingerprint = SDPFingerprint(algorithm: certificate.fingerprint.algorithm,
                                         digest: certificate.fingerprint.digest)
        func media(_ ssrc: UInt32?, _ kind: MediaKind, receives: Bool) -> SDPLocalMedia {
            SDPLocalMedia(track: ssrc.map {
                SDPLocalMedia.Track(streamID: configuration.streamID, trackID: "\(configuration.streamID)-\(kind)",
                                    ssrc: $0, cname: configuration.cname,
                                    simulcastSSRCs: kind == .video ? configuration.videoSimulcastSSRCs : [])
            }, receives: receives)
        }
        return SDPLocalDescriptionOptions(
            iceUfrag: credentials.ufrag, icePassword: credentials.pwd, fingerprint: fingerprint,
            audio: media(configuration.audioSSRC, .audio, receives: configuration.receivesAudio),
            video: media(configuration.videoSSRC, .video, receives: configuration.receivesVideo),
            transportWideCC: configuration.transportFeedbackInterval != nil,
            audioRedundancy: configuration.audioRedundancy,
            sessionID: UInt64.random(in: 1...UInt64(Int64.max)))
    }

    /// Applies the remote description: ICE credentials and candidates, DTLS role and fingerprint, and the
    /// send/receive tracks and feedback units of every section accepted in `answer` (`local` is our own
    /// description).
    private func apply(remote: SessionDescription, answer: SessionDescription, local: SessionDescription,
                       ice: ICEAgent) throws(PeerError) {
        let negotiated = try NegotiatedMedia(remote: remote, answer: answer, local: local,
                                             wantsTransportCC: configuration.transportFeedbackInterval != nil)
        if let id = negotiated.transportWideCCID, let interval = configuration.transportFeedbackInterval {
            transportFeedback.withLock {
                $0 = TransportFeedback(extensionID: id, senderSSRC: feedbackSSRC, interval: interval)
            }
            let bounds = configuration.bandwidthEstimateBounds
            transportCongestion.withLock { $0 = TransportCongestionControl(bounds: bounds) }
        }
        for (kind, send) in negotiated.send {
            guard let ssrc = kind == .audio ? configuration.audioSSRC : configuration.videoSSRC else { continue }
            var track = SendTrack(kind: kind, ssrc: ssrc, payloadType: send.payloadType,
                                  transportSequenceID: send.transportSequenceID)
            if kind == .video, !configuration.videoSimulcastSSRCs.isEmpty {
                track.nackResponder?.refreshesDeclinedRepairs = false
            }
            if kind == .audio, let red = send.redundancyPayloadType {
                track.redundancy = try? REDPacketizer(redPayloadType: red, blockPayloadType: send.payloadType)
            }
            transportCongestion.withLock { $0?.setOffset(track.transportSequenceOffset, for: kind) }
            withSend(kind) { $0 = track }
            reporter.withLock { $0.addSender(kind, ssrc: ssrc) }
            router.withLock { $0.addSender(kind, ssrc: ssrc) }
            if kind == .video, !configuration.videoSimulcastSSRCs.isEmpty {
                let (payloadType, sequenceID) = (send.payloadType, send.transportSequenceID)
                let ssrcs = configuration.videoSimulcastSSRCs
                videoLayerSend.withLock { tracks in
                    for ssrc in ssrcs {
                        var layer = SendTrack(kind: .video, ssrc: ssrc, payloadType: payloadType,
                                              transportSequenceID: sequenceID)
                        layer.nackResponder?.refreshesDeclinedRepairs = false
                        tracks.append(layer)
                    }
                }
                router.withLock { $0.addVideoLayers(configuration.videoSimulcastSSRCs) }
            }
        }
        for (kind, receive) in negotiated.receive {
            withReceive(kind) {
                $0 = ReceiveTrack(kind: kind, payloadType: receive.payloadType, ssrc: receive.remoteSSRC,
                                  redundancyPayloadType: receive.redundancyPayloadType)
            }
            reporter.withLock { $0.addReceiver(kind, ssrc: receive.remoteSSRC) }
            if kind == .video { nackRequester.withLock { $0 = NACKRequester(senderSSRC: feedbackSSRC) } }
        }

        let dtls: DTLSTransport
        do throws(DTLSError) {
            dtls = try DTLSTransport(ice: ice, role: negotiated.role, certificate: certificate,
                                     remoteFingerprint: negotiated.remoteFingerprint)
        } catch { throw .dtls(error) }
        dtls.setMediaHandler { [weak self] kind, packet in self?.receive(kind, packet) }
        if let box = incomingLoss.withLock({ $0 }) { dtls.setReceiveDropFilter(Self.dropFilter(box.loss)) }
        let installed = control.withLock { c in
            guard c.state == .new else { return false }
            c.signaling = .negotiated
            c.tasks.append(Task { [weak self, events = dtls.events] in
                for await state in events {
                    guard let self else { return }
                    self.handle(state)
                }
            })
            transport.withLock { $0 = dtls }
            return true
        }
        guard installed else {
            dtls.close()
            throw .invalidState("closed during negotiation")
        }
        transition(to: .connecting)

        do throws(ICEError) {
            let credentials = negotiated.remoteCredentials
            try ice.setRemoteCredentials(ICECredentials(ufrag: credentials.ufrag, pwd: credentials.pwd))
            for candidate in negotiated.remoteCandidates { try ice.addRemoteCandidate(candidate) }
            if negotiated.remoteEndOfCandidates { try ice.addRemoteEndOfCandidates() }
        } catch { throw .ice(error) }
        if ice.state == .connected { dtls.start() }
    }

    // MARK: - Events (control plane)

    private func handle(_ event: ICEEvent) {
        switch event {
        case .localCandidate(let candidate): continuation.yield(.localCandidate(candidate.sdp))
        case .gatheringComplete: continuation.yield(.gatheringComplete)
        case .stateChanged(.connected): transport.withLock { $0 }?.start()
        case .stateChanged(.failed): fail(.ice(.connectivityFailed))
        case .stateChanged, .selectedPair: break
        }
    }

    private func handle(_ state: DTLSTransportState) {
        switch state {
        case .connected:
            transition(to: .connected)
            scheduleReports()
            scheduleTransportFeedback()
        case .failed: fail(.dtls(transportFailure ?? .handshakeFailed(reason: "the transport failed")))
        case .closed: transition(to: .closed)
        case .new, .connecting: break
        }
    }

    private func fail(_ reason: PeerError) { transition(to: .failed, because: reason) }

    private func transition(to next: PeerConnectionState, because reason: PeerError? = nil) {
        let changed = control.withLock { c in
            guard !c.state.isTerminal, c.state != next else { return false }
            c.state = next
            if next == .failed { c.failure = reason }
            return true
        }
        if changed { continuation.yield(.stateChanged(next)) }
    }

    private func scheduleReports() {
        guard let interval = configuration.rtcpInterval,
              let ice = control.withLock({ $0.state == .connected ? $0.ice : nil })
        else { return }
        ice.schedule(every: interval) { [weak self] in
            guard let self, self.state == .connected else { return false }
            try? self.sendReports()
            self.poll(self.nackRequester)  // NACKs repeat while no video packet arrives
            return true
        }
    }

    /// Transport-wide feedback goes out about every ``PeerConfiguration/transportFeedbackInterval`` while
    /// connected, written by the receive path as soon as one is due (``receiveRTP(_:)``: the network thread is
    /// awake for that packet anyway) and by this timer, four times slower, when packets stop coming. A timer at the
    /// interval itself woke the network thread 20 times a second per connection for nothing else; each wake-up
    /// costs tens of microseconds of CPU on a virtual machine (Docs/Streaming.md).
    private func scheduleTransportFeedback() {
        guard let interval = configuration.transportFeedbackInterval,
              transportFeedback.withLock({ $0 != nil }),
              let ice = control.withLock({ $0.state == .connected ? $0.ice : nil })
        else { return }
        ice.schedule(every: interval * 4) { [weak self] in
            guard let self, self.state == .connected else { return false }
            self.poll(self.transportFeedback)
            return true
        }
    }

    /// Polls one feedback unit now and delivers what it has to say.
    private func poll<Unit: FeedbackUnit>(_ unit: borrowing Mutex<Unit?>) {
        guard let dtls = transport.withLock({ $0 }), dtls.state == .connected else { return }
        var output = Output(connection: self, dtls: dtls, now: clock.now())
        unit.withLock { $0?.poll(now: output.now, output: &output) }
        deliver(output.notifications)
    }

    // MARK: - Receive path (network thread)

    private func receive(_ kind: MediaPacketKind, _ packet: UnsafeMutableRawBufferPointer) {
        let bytes = UnsafeRawBufferPointer(packet)
        lastPacketArrival.store(clock.now(), ordering: .relaxed)
        switch kind {
        case .rtp: receiveRTP(bytes)
        case .rtcp: receiveRTCP(bytes)
        }
    }

    /// Handles one decrypted RTP packet (internal for tests): the section that takes it, the feedback units, the
    /// section's handler, then the transport-wide feedback when one is due (the packet goes on first).
    ///
    /// The packet's arrival time, which the transport-wide feedback and the receive statistics (interarrival
    /// jitter) record, is the clock now, unless the ICE agent batches its reads and knows when the datagram came
    /// (``ICEAgent/receivedDatagramArrival``, the kernel's receive timestamp, with the ``PeerClock/system`` clock):
    /// read up to a batching interval late, the packet would otherwise show delay variation that is not in the
    /// network. Whether feedback is due, and the NACK timers, go by the clock now.
    func receiveRTP(_ bytes: UnsafeRawBufferPointer) {
        guard let view = try? RTPPacketView(parsing: bytes),
              let dtls = transport.withLock({ $0 })
        else { return }
        let now = clock.now()
        let arrival = clock.readsSystemMonotonic ? min(dtls.ice.receivedDatagramArrival ?? now, now) : now
        var section: MediaKind?
        var first = false
        for kind in MediaKind.allCases where section == nil {
            let hit: Bool? = withReceive(kind) { track in
                guard track?.accepts(ssrc: view.ssrc, payloadType: view.payloadType) == true else { return nil }
                return track!.accept(ssrc: view.ssrc)
            }
            if let hit {
                section = kind
                first = hit
            }
        }
        var output = Output(connection: self, dtls: dtls, now: now)
        var packet = ReceivedRTP(view)
        let feedbackDue: Bool = transportFeedback.withLock { unit in
            guard unit != nil else { return false }
            packet.transportSequenceNumber = view.transportWideSequenceNumber(unit!.extensions)
            unit!.received(packet, section: section, now: arrival, output: &output)
            return unit!.isDue(now: now)
        }
        reporter.withLock { $0.received(packet, section: section, now: arrival, output: &output) }
        if section == .video {
            nackRequester.withLock { $0?.received(packet, section: section, now: now, output: &output) }
        }
        // Once per section: the first packet it accepts.
        if first, let section { continuation.yield(.firstMediaPacket(section)) }
        let receiver: RTPReceiver?
        switch section {
        case .audio: receiver = audioHandler.withLock { $0 }
        case .video: receiver = videoHandler.withLock { $0 }
        case nil: receiver = nil
        }
        receiver?.handler(view)
        if feedbackDue { transportFeedback.withLock { $0?.poll(now: now, output: &output) } }
    }

    /// Handles one decrypted RTCP compound packet (internal for tests). A compound whose chain of packets does
    /// not add up (RFC 3550 A.2) is dropped whole; a packet of a valid chain that does not decode is skipped.
    /// Transport-wide feedback, the only RTCP sent many times a second, is decoded into ``feedbackScratch``:
    /// nothing is allocated for it. The rest (reports, REMB: about once a second) decode as ``RTCPPacket``.
    /// A sender report's arrival (for the delay since it that our receiver reports give) is taken as an RTP packet's.
    func receiveRTCP(_ bytes: UnsafeRawBufferPointer) {
        guard let dtls = transport.withLock({ $0 }) else { return }
        var output = Output(connection: self, dtls: dtls, now: clock.now())
        let now = output.now
        let arrival = clock.readsSystemMonotonic ? min(dtls.ice.receivedDatagramArrival ?? now, now) : now
        try? RTCPCompoundPacket.forEachPacket(in: bytes) { header, packet in
            if header.packetType == RTCPPacketType.transportFeedback,
               header.count == RTCPTransportWideFeedback.format {
                feedbackScratch.withLock { feedback in
                    guard (try? feedback.parse(packet)) != nil else { return }
                    transportFeedback.withLock { $0?.received(feedback, now: now, output: &output) }
                    transportCongestion.withLock { $0?.received(feedback, now: now, output: &output) }
                }
            } else if let decoded = try? RTCPPacket(parsing: packet) {
                reporter.withLock { $0.received(decoded, now: arrival, output: &output) }
                router.withLock { $0.received(decoded, now: now, output: &output) }
                if case .genericNACK = decoded { answer(decoded, now: now, output: &output) }
            }
        }
        deliver(output.notifications)
    }

    /// The peer's NACK: each video stream's ``NACKResponder`` (the one stream, or the simulcast layers whose SSRC it
    /// names) answers it, told the path's state first, with the one ``retransmissionLimiter``.
    private func answer(_ nack: RTCPPacket, now: UInt64, output: inout Output) {
        let rtt = reporter.withLock { $0.videoSender?.roundTripTime }
        let (congested, overloaded, estimate, room) = transportCongestion.withLock {
            ($0?.congested ?? false, $0?.overloaded(now: Int64(now / 1000)) ?? false, $0?.estimate,
             $0?.retransmissionRoom(now: Int64(now / 1000)))
        }
        func answer(_ responder: inout NACKResponder?, limiter: inout RetransmissionRateLimiter) {
            responder?.roundTripTime = rtt
            responder?.pathCongested = congested
            responder?.pathOverloaded = overloaded
            responder?.pathEstimate = estimate
            responder?.pathRoom = room
            responder?.received(nack, now: now, limiter: &limiter, output: &output)
        }
        retransmissionLimiter.withLock { limiter in
            withSend(.video) { track in if track != nil { answer(&track!.nackResponder, limiter: &limiter) } }
            videoLayerSend.withLock { tracks in
                for i in tracks.indices { answer(&tracks[i].nackResponder, limiter: &limiter) }
            }
        }
    }

    /// Gives the feedback units' notifications to the sections' handlers (no lock of ours held).
    private func deliver(_ notifications: PendingNotifications) {
        notifications.forEach { section, feedback in
            let receiver = section == .audio ? audioFeedback.withLock { $0 } : videoFeedback.withLock { $0 }
            receiver?.handler(feedback)
        }
    }

    // MARK: - Feedback output

    /// What the feedback units write goes out on the transport; retransmissions get a new transport-wide number
    /// (as libwebrtc's do); notifications wait in ``notifications`` until the unit's lock is released.
    private struct Output: FeedbackOutput {
        let connection: PeerConnection
        let dtls: DTLSTransport
        let now: UInt64
        /// The last send that failed.
        var failure: DTLSError?
        var notifications = PendingNotifications()

        mutating func sendRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) -> Bool {
            do throws(DTLSError) {
                try dtls.sendRTCP(buffer, length: length)
                return true
            } catch {
                failure = error
                return false
            }
        }

        mutating func resendRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) -> Bool {
            let now = now
            connection.transportCongestion.withLock {
                $0?.stamp(.video, length: length, now: now, retransmission: true)
            }?.write(into: buffer)
            return (try? dtls.sendRTP(buffer, length: length)) != nil
        }

        mutating func notify(_ section: MediaKind, _ feedback: RTCPFeedback) {
            notifications.append(section, feedback)
        }
    }

    // MARK: - Loss injection (tests)

    /// Test hook: from now on, outgoing video packets for which `loss` returns true are kept in the send history
    /// but not sent, as if the network had lost them. `nil` removes it.
    func setOutgoingVideoLoss(_ loss: OutgoingLoss?) {
        outgoingVideoLoss.withLock { $0 = loss.map(OutgoingLossBox.init) }
    }

    /// Test hook: from now on, received RTP packets for which `loss` returns true are dropped before SRTP, as
    /// if the network had lost them (a later retransmission of the same packet is accepted). `nil` removes it.
    /// Costs nothing per packet when unset (one relaxed atomic load in ``DTLSTransport``).
    func setIncomingLoss(_ loss: IncomingLoss?) {
        incomingLoss.withLock { $0 = loss.map(IncomingLossBox.init) }
        transport.withLock { $0 }?.setReceiveDropFilter(loss.map(Self.dropFilter))
    }

    /// A DTLS drop filter applying `loss` to RTP (SSRC and sequence number from the clear RTP header, RFC 3550
    /// §5.1); RTCP always passes.
    private static func dropFilter(_ loss: @escaping IncomingLoss) -> DTLSTransport.ReceiveDropFilter {
        { kind, datagram in
            guard kind == .rtp, datagram.count >= RTPPacketView.fixedHeaderLength else { return false }
            let sequence = UInt16(datagram[2]) << 8 | UInt16(datagram[3])
            let ssrc = UInt32(datagram[8]) << 24 | UInt32(datagram[9]) << 16 | UInt32(datagram[10]) << 8
                | UInt32(datagram[11])
            return loss(ssrc, sequence)
        }
    }

    // MARK: - Per-section locks

    @inline(__always)
    private func withSend<R: Sendable, E: Error>(
        _ kind: MediaKind, _ body: (inout SendTrack?) throws(E) -> R
    ) throws(E) -> R {
        switch kind {
        case .audio: try audioSend.withLock { (t: inout SendTrack?) throws(E) -> R in try body(&t) }
        case .video: try videoSend.withLock { (t: inout SendTrack?) throws(E) -> R in try body(&t) }
        }
    }

    @inline(__always)
    private func withReceive<R: Sendable>(_ kind: MediaKind, _ body: (inout ReceiveTrack?) -> R) -> R {
        switch kind {
        case .audio: audioReceive.withLock { body(&$0) }
        case .video: videoReceive.withLock { body(&$0) }
        }
    }
}
