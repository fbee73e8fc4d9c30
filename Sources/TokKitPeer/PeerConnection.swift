import Synchronization
import TokKitDTLS
import TokKitICE
import TokKitRTP
import TokKitSDP
import TokKitSRTP

/// A WebRTC peer connection for TokKit's media: one BUNDLEd, rtcp-muxed DTLS-SRTP transport (``IceAgent`` +
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
/// receive handler. RTCP SR/RR are sent every ``PeerConfiguration/rtcpInterval`` (or on ``sendReports()``);
/// received reports feed ``statistics(_:)`` (loss, jitter, round-trip time from LSR/DLSR).
///
/// Feedback (RFC 4585, RFC 5104): PLI, new FIR and REMB about our streams reach the section's feedback handler
/// (``setFeedbackHandler(_:_:)``); ``requestKeyframe()`` sends a PLI about the peer's video. Video is
/// retransmitted on NACK: every packet sent is kept (unprotected) in a 512-packet history and sent again with its
/// sequence number when the peer NACKs it. On the receiving side, gaps in the peer's video sequence numbers are
/// NACKed at once and then every 20 ms (checked on each video packet and on the RTCP timer), up to 10 times.
///
/// Congestion control feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01), unless
/// ``PeerConfiguration/transportFeedbackInterval`` is nil: the transport-wide sequence number extension and
/// `transport-cc` are negotiated; the arrival time of every received packet carrying that extension is recorded
/// (network thread, no allocation), and every interval a transport-wide feedback message reports all packets
/// since the previous one, so the peer's bandwidth estimator (Chromium's) can ramp up. In the other direction every
/// RTP packet we send on a section that negotiated the extension (audio, video, NACK retransmissions) carries the
/// next number of one 16-bit transport-wide counter, and its send time and size are recorded; the peer's feedback
/// about them drives a send-side bandwidth estimate (draft-ietf-rmcat-gcc-02, ``SendSideBandwidthEstimator``,
/// bounded by ``PeerConfiguration/bandwidthEstimateBounds``), reported to the video feedback handler as
/// ``RTCPFeedback/sendSideEstimatedBitrate(_:)``. ``transportFeedbackStatistics`` counts both directions.
///
/// Events: ``events`` carries trickled candidates, state changes and, once per received section,
/// ``PeerConnectionEvent/firstMediaPacket(_:)`` when the peer's media first arrives.
///
/// Threading: every method may be called from any thread. Signalling state is guarded by one lock with an
/// explicit state enum; ICE/DTLS events are followed by one task each. ``sendRTP(_:payload:timestamp:marker:)``
/// runs on the caller's (media) thread under that section's lock and allocates nothing. Receive handlers run on
/// the ICE network thread (`networkThreadName`), one call per packet, no task, no allocation; they must not block.
public final class PeerConnection: Sendable {
    /// Receives one decrypted RTP packet of a section, on the network thread; valid only during the call.
    public typealias RTPHandler = @Sendable (borrowing RTPPacketView) -> Void
    /// Receives RTCP feedback about one of our sections, on the network thread; must not block.
    public typealias FeedbackHandler = @Sendable (RTCPFeedback) -> Void

    /// The local media and network configuration.
    public let configuration: PeerConfiguration
    /// ``PeerConfiguration/transportFeedbackInterval`` in nanoseconds (unused when it is nil).
    private let transportFeedbackNanoseconds: UInt64
    /// Our DTLS identity; its fingerprint is in our descriptions.
    public let certificate: DTLSCertificate
    /// Candidates and state changes, in order. Finishes after ``close()``.
    public let events: AsyncStream<PeerConnectionEvent>

    private let continuation: AsyncStream<PeerConnectionEvent>.Continuation
    private let control = Mutex(Control())
    private let transport = Mutex<DTLSTransport?>(nil)
    private let audioSend = Mutex<SendTrack?>(nil)
    private let videoSend = Mutex<SendTrack?>(nil)
    private let audioReceive = Mutex<ReceiveTrack?>(nil)
    private let videoReceive = Mutex<ReceiveTrack?>(nil)
    // Handlers sit in non-generic structs: a bare closure in a `Mutex` gained two reabstraction thunks at every
    // read under the lock, so per-packet reads made each delivery slower than the last (see IceAgentCore.Receiver).
    private struct RTPReceiver: Sendable { let handler: RTPHandler }
    private struct FeedbackReceiver: Sendable { let handler: FeedbackHandler }
    private let audioHandler = Mutex<RTPReceiver?>(nil)
    private let videoHandler = Mutex<RTPReceiver?>(nil)
    private let audioFeedback = Mutex<FeedbackReceiver?>(nil)
    private let videoFeedback = Mutex<FeedbackReceiver?>(nil)
    /// Transport-wide CC state, once negotiated.
    private let transportFeedback = Mutex<TransportFeedback?>(nil)
    /// Its send side (stamping, send record, bandwidth estimate); taken inside a send section's lock.
    private let transportCongestion = Mutex<TransportCongestionControl?>(nil)
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
        var ice: IceAgent?
        var tasks: [Task<Void, Never>] = []
        var localOffer: SessionDescription?
        /// ``close()`` ran (the state may already be closed by the peer's close_notify).
        var released = false
    }

    /// Creates an idle connection with a fresh certificate; nothing touches the network before
    /// ``createOffer()`` or ``createAnswer(for:)``.
    public init(configuration: PeerConfiguration = PeerConfiguration()) throws(PeerError) {
        self.configuration = configuration
        let feedbackInterval = configuration.transportFeedbackInterval ?? .zero
        transportFeedbackNanoseconds = UInt64(max(feedbackInterval / .nanoseconds(1), 0))
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

    /// The negotiated SRTP profile, once connected.
    public var srtpProfile: SRTPProfile? { transport.withLock { $0 }?.srtpProfile }

    /// How long since the last SRTP or SRTCP packet from the peer arrived (authenticated), or nil if none has.
    /// Both ends send RTCP at least every ``PeerConfiguration/rtcpInterval`` while connected, so a silence of a few
    /// intervals means the path is gone (as WebRTC's "not receiving" after 2.5 s). Any thread.
    public var timeSinceLastPacket: Duration? {
        let last = lastPacketArrival.load(ordering: .relaxed)
        guard last != 0 else { return nil }
        let now = RTCPClock.monotonicNanoseconds()
        return .nanoseconds(Int64(now &- min(last, now)))
    }

    /// The path media takes (the ICE pair selected), once connected; nil before.
    public var selectedCandidatePair: IceCandidatePair? { control.withLock { $0.ice }?.selectedPair }

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
            fail()
            throw .sdp(error)
        }
        do throws(PeerError) {
            try apply(remote: offer, answer: answer, local: answer, ice: ice)
        } catch {
            fail()
            throw error
        }
        return answer
    }

    /// Applies the peer's answer to our offer. Throws ``PeerError/invalidState(_:)`` without a pending offer,
    /// ``PeerError/invalidRemoteDescription(_:)`` when it lacks credentials, fingerprint or a compatible setup.
    public func setRemoteDescription(_ answer: SessionDescription) throws(PeerError) {
        let pending: (IceAgent, SessionDescription)? = control.withLock { c in
            guard c.signaling == .haveLocalOffer, let ice = c.ice, let offer = c.localOffer else { return nil }
            c.signaling = .negotiated
            return (ice, offer)
        }
        guard let (ice, offer) = pending else { throw .invalidState("no local offer pending") }
        do throws(PeerError) {
            try apply(remote: answer, answer: answer, local: offer, ice: ice)
        } catch {
            fail()
            throw error
        }
    }

    /// Adds one trickled remote candidate (`candidate:…`, with or without `a=`).
    public func addRemoteCandidate(_ candidate: String) throws(PeerError) {
        guard let ice = control.withLock({ $0.ice }) else { throw .invalidState("no ICE agent yet") }
        do throws(IceError) { try ice.addRemoteCandidate(candidate) } catch { throw .ice(error) }
    }

    /// The peer signalled end-of-candidates.
    public func addRemoteEndOfCandidates() throws(PeerError) {
        guard let ice = control.withLock({ $0.ice }) else { throw .invalidState("no ICE agent yet") }
        do throws(IceError) { try ice.addRemoteEndOfCandidates() } catch { throw .ice(error) }
    }

    /// Sends close_notify, closes ICE (its network thread is joined, unless called on it), drops keys and
    /// buffers, reports ``PeerConnectionState/closed`` and finishes ``events``. Idempotent.
    public func close() {
        let taken: (IceAgent?, [Task<Void, Never>], Bool)? = control.withLock { c in
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
        let sender = feedbackSSRC
        let failure: PeerError? = withReceive(.video) { track -> PeerError? in
            // No copy of the track: it would share `scratch` and make the write below copy it.
            guard let media = track?.ssrc else { return .noSuchTrack(.video) }
            let sent: PeerError? = track!.scratch.withUnsafeMutableBytes { buffer -> PeerError? in
                do throws(RTPError) {
                    let length = try RTCPPictureLossIndication(senderSSRC: sender, mediaSSRC: media).write(into: buffer)
                    do throws(DTLSError) { try dtls.sendRTCP(buffer, length: length) } catch { return .dtls(error) }
                } catch { return .rtp(error) }
                return nil
            }
            if sent == nil { track!.keyFrameRequestsSent += 1 }
            return sent
        }
        if let failure { throw failure }
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
        try withSend(kind) { (track: inout SendTrack?) throws(PeerError) in
            guard let t = track else { throw .noSuchTrack(kind) }
            let header = RTPHeader(marker: marker, payloadType: t.payloadType, sequenceNumber: t.sequenceNumber,
                                   timestamp: timestamp, ssrc: t.ssrc, extensions: t.extensions)
            let length: Int
            do throws(RTPError) {
                length = try header.write(payload: payload, into: UnsafeMutableRawBufferPointer(
                    rebasing: t.buffer[0..<SendTrack.capacity]))
            } catch { throw .rtp(error) }
            stampTransportSequence(t, length: length)
            if let history = t.history {
                try? history.store(UnsafeRawBufferPointer(rebasing: t.buffer[..<length]))
            }
            let lost = kind == .video && (outgoingVideoLoss.withLock { $0 }?.loss(header.sequenceNumber) ?? false)
            do throws(DTLSError) {
                if !lost { try dtls.sendRTP(t.buffer, length: length) }
            } catch .notConnected {
                throw .notConnected
            } catch { throw .dtls(error) }
            track!.sequenceNumber &+= 1
            track!.lastTimestamp = timestamp
            track!.packets += 1
            track!.payloadBytes += UInt64(payload.count)
        }
    }

    /// Sends one compound RTCP packet now: an SR per sending section (the first carrying a reception report
    /// block per received stream), or an RR when we send nothing. Reduced-size style: no SDES (rtcp-rsize).
    public func sendReports() throws(PeerError) {
        guard let dtls = transport.withLock({ $0 }), dtls.state == .connected else { throw .notConnected }
        let ntp = RTCPClock.ntpNow()
        let now = RTCPClock.monotonicNanoseconds()
        var blocks: [RTCPReportBlock] = []
        for kind in MediaKind.allCases {
            if let block = withReceive(kind, { $0?.reportBlock(now: now) }) { blocks.append(block) }
        }
        var packets: [RTCPPacket] = []
        for kind in MediaKind.allCases {
            let sr: RTCPSenderReport? = withSend(kind) { track in
                guard let t = track else { return nil }
                track!.rememberSenderReport(ntp.compact)
                return RTCPSenderReport(ssrc: t.ssrc, ntpTimestamp: ntp, rtpTimestamp: t.lastTimestamp,
                                        packetCount: UInt32(truncatingIfNeeded: t.packets),
                                        octetCount: UInt32(truncatingIfNeeded: t.payloadBytes))
            }
            if var sr {
                if packets.isEmpty { sr.reports = blocks }
                packets.append(.senderReport(sr))
            }
        }
        if packets.isEmpty {
            let ssrc = configuration.audioSSRC ?? configuration.videoSSRC ?? 1
            packets.append(.receiverReport(RTCPReceiverReport(ssrc: ssrc, reports: blocks)))
        }
        var bytes: [UInt8]
        do throws(RTPError) { bytes = try RTCPCompoundPacket(packets: packets).serialized() } catch { throw .rtp(error) }
        let length = bytes.count
        bytes += repeatElement(0, count: 64)
        let result: DTLSError? = bytes.withUnsafeMutableBytes { buffer in
            do throws(DTLSError) { try dtls.sendRTCP(buffer, length: length) } catch { return error }
            return nil
        }
        if let result { throw .dtls(result) }
    }

    /// A snapshot of the `kind` section's statistics.
    public func statistics(_ kind: MediaKind) -> TrackStatistics {
        var s = TrackStatistics()
        withSend(kind) { track in
            guard let t = track else { return }
            s.packetsSent = t.packets
            s.bytesSent = t.payloadBytes
            s.senderReportsSent = t.senderReports
            s.remotePacketsLost = t.remoteLost
            s.remoteFractionLost = Double(t.remoteFractionLost) / 256
            s.remoteJitter = Double(t.remoteJitter) / Double(kind.clockRate)
            s.roundTripTime = t.roundTripTime
            s.receptionReportsReceived = t.receptionReports
            s.packetsRetransmitted = t.retransmissions
            s.nacksReceived = t.nacksReceived
            s.keyFrameRequestsReceived = t.keyFrameRequestsReceived
        }
        withReceive(kind) { track in
            guard let t = track else { return }
            s.packetsReceived = t.packets
            s.bytesReceived = t.payloadBytes
            s.senderReportsReceived = t.senderReports
            s.nacksSent = t.nacksSent
            s.keyFrameRequestsSent = t.keyFrameRequestsSent
            if let r = t.statistics {
                s.packetsLost = r.cumulativeLost
                s.jitter = Double(r.jitter.value) / Double(kind.clockRate)
            }
        }
        return s
    }

    // MARK: - Negotiation internals

    private func startICE(role: IceRole) throws(PeerError) -> IceAgent {
        let created: Result<IceAgent, PeerError> = control.withLock { c in
            guard c.state == .new, c.ice == nil else { return .failure(.invalidState("negotiation already started")) }
            do throws(IceError) {
                let ice = try IceAgent(role: role, configuration: configuration.ice)
                c.ice = ice
                c.tasks.append(Task { [weak self, events = ice.events] in
                    for await event in events {
                        guard let self else { return }
                        self.handle(event)
                    }
                })
                return .success(ice)
            } catch { return .failure(.ice(error)) }
        }
        let ice = try created.get()
        do throws(IceError) { try ice.gatherCandidates() } catch { throw .ice(error) }
        return ice
    }

    private func localOptions(_ ice: IceAgent) throws(PeerError) -> SDPLocalDescriptionOptions {
        let credentials: IceCredentials
        do throws(IceError) { credentials = try ice.localCredentials } catch { throw .ice(error) }
        let fingerprint = SDPFingerprint(algorithm: certificate.fingerprint.algorithm,
                                         digest: certificate.fingerprint.digest)
        func media(_ ssrc: UInt32?, _ kind: MediaKind, receives: Bool) -> SDPLocalMedia {
            SDPLocalMedia(track: ssrc.map {
                SDPLocalMedia.Track(streamID: configuration.streamID, trackID: "\(configuration.streamID)-\(kind)",
                                    ssrc: $0, cname: configuration.cname)
            }, receives: receives)
        }
        return SDPLocalDescriptionOptions(
            iceUfrag: credentials.ufrag, icePassword: credentials.pwd, fingerprint: fingerprint,
            audio: media(configuration.audioSSRC, .audio, receives: configuration.receivesAudio),
            video: media(configuration.videoSSRC, .video, receives: configuration.receivesVideo),
            transportWideCC: configuration.transportFeedbackInterval != nil,
            sessionID: UInt64.random(in: 1...UInt64(Int64.max)))
    }

    /// Applies the remote description: ICE credentials and candidates, DTLS role and fingerprint, and the
    /// send/receive tracks of every section accepted in `answer` (`local` is our own description).
    private func apply(remote: SessionDescription, answer: SessionDescription, local: SessionDescription,
                       ice: IceAgent) throws(PeerError) {
        guard let first = remote.media.first(where: { !$0.isRejected }) else {
            throw .invalidRemoteDescription("no accepted media section")
        }
        let t = remote.transport(of: first)
        guard let ufrag = t.iceUfrag, let pwd = t.icePassword else {
            throw .invalidRemoteDescription("missing ICE credentials")
        }
        guard let sdpFingerprint = t.fingerprints.first else { throw .invalidRemoteDescription("missing fingerprint") }
        // RFC 4145 §4: a missing setup attribute means active.
        guard let remoteSetup = DTLSSetup(rawValue: (t.setup ?? .active).rawValue),
              let localSetup = local.media.lazy.compactMap({ local.transport(of: $0).setup })
                  .first.flatMap({ DTLSSetup(rawValue: $0.rawValue) })
        else { throw .invalidRemoteDescription("unsupported setup role") }
        let role: DTLSRole
        let fingerprint: DTLSFingerprint
        do throws(DTLSError) {
            role = try DTLSSetup.role(local: localSetup, remote: remoteSetup)
            fingerprint = try DTLSFingerprint(sdpValue: sdpFingerprint.sdp)
        } catch { throw .dtls(error) }

        // Transport-wide CC: the answer echoes the offer's extension id (one id for the whole BUNDLE).
        let accepted = answer.media.filter { !$0.isRejected }
        var transportID: UInt8?
        if configuration.transportFeedbackInterval != nil,
           let id = accepted.lazy.compactMap({ $0.extensionID(SDPExtensionMap.transportWideCCURI) }).first,
           accepted.contains(where: { $0.codecs.contains { $0.feedback.contains(.transportWideCC) } }) {
            transportFeedback.withLock { $0 = TransportFeedback(extensionID: id) }
            let bounds = configuration.bandwidthEstimateBounds
            transportCongestion.withLock { $0 = TransportCongestionControl(bounds: bounds) }
            transportID = id
        }

        let answerIsLocal = answer == local
        for kind in MediaKind.allCases {
            guard let a = answer.media.first(where: { $0.kind == kind.rawValue && !$0.isRejected }),
                  let codec = a.codecs.first
            else { continue }
            let direction = a.effectiveDirection
            let weSend = answerIsLocal ? direction.sends : direction.receives
            let weReceive = answerIsLocal ? direction.receives : direction.sends
            let ssrc = kind == .audio ? configuration.audioSSRC : configuration.videoSSRC
            if weSend, let ssrc {
                // Stamped only on a section that negotiated the extension under the transport's id.
                let stamped = a.extensionID(SDPExtensionMap.transportWideCCURI) == transportID ? transportID : nil
                withSend(kind) {
                    $0 = SendTrack(kind: kind, ssrc: ssrc, payloadType: codec.payloadType,
                                   transportSequenceID: stamped)
                }
            }
            if weReceive {
                let remoteSSRC = remote.media.first { $0.kind == kind.rawValue && !$0.isRejected }?.sources.first?.ssrc
                withReceive(kind) { $0 = ReceiveTrack(kind: kind, payloadType: codec.payloadType, ssrc: remoteSSRC) }
            }
        }

        let dtls: DTLSTransport
        do throws(DTLSError) {
            dtls = try DTLSTransport(ice: ice, role: role, certificate: certificate, remoteFingerprint: fingerprint)
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

        do throws(IceError) {
            try ice.setRemoteCredentials(IceCredentials(ufrag: ufrag, pwd: pwd))
            for m in remote.media where !m.isRejected {
                for candidate in m.candidates { try ice.addRemoteCandidate(candidate.description) }
            }
            if remote.media.contains(where: { !$0.isRejected && $0.endOfCandidates }) {
                try ice.addRemoteEndOfCandidates()
            }
        } catch { throw .ice(error) }
        if ice.state == .connected { dtls.start() }
    }

    // MARK: - Events (control plane)

    private func handle(_ event: IceEvent) {
        switch event {
        case .localCandidate(let candidate): continuation.yield(.localCandidate(candidate.sdp))
        case .gatheringComplete: continuation.yield(.gatheringComplete)
        case .stateChanged(.connected): transport.withLock { $0 }?.start()
        case .stateChanged(.failed): fail()
        case .stateChanged, .selectedPair: break
        }
    }

    private func handle(_ state: DTLSTransportState) {
        switch state {
        case .connected:
            transition(to: .connected)
            scheduleReports()
            scheduleTransportFeedback()
        case .failed: fail()
        case .closed: transition(to: .closed)
        case .new, .connecting: break
        }
    }

    private func fail() { transition(to: .failed) }

    private func transition(to next: PeerConnectionState) {
        let changed = control.withLock { c in
            guard !c.state.isTerminal, c.state != next else { return false }
            c.state = next
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
            self.sendDueNACKs()
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
            let now = RTCPClock.monotonicNanoseconds()
            let interval = self.transportFeedbackNanoseconds
            if self.transportFeedback.withLock({ $0?.isDue(now: now, interval: interval) ?? false }) {
                self.sendTransportFeedback(now: now)
            }
            return true
        }
    }

    /// Sends the transport-wide feedback due now (internal for tests). Media SSRC: the peer's first received
    /// stream, as Chromium does (the message covers the whole transport).
    func sendTransportFeedback(now: UInt64 = RTCPClock.monotonicNanoseconds()) {
        guard let dtls = transport.withLock({ $0 }), dtls.state == .connected else { return }
        let media = withReceive(.audio) { $0?.ssrc } ?? withReceive(.video) { $0?.ssrc } ?? 0
        let sender = feedbackSSRC
        transportFeedback.withLock { state in
            guard state != nil else { return }
            state!.sendDue(senderSSRC: sender, mediaSSRC: media, now: now) { buffer, length in
                try? dtls.sendRTCP(buffer, length: length)
            }
        }
    }

    // MARK: - Receive path (network thread)

    private func receive(_ kind: MediaPacketKind, _ packet: UnsafeMutableRawBufferPointer) {
        let bytes = UnsafeRawBufferPointer(packet)
        lastPacketArrival.store(RTCPClock.monotonicNanoseconds(), ordering: .relaxed)
        switch kind {
        case .rtp: receiveRTP(bytes)
        case .rtcp: receiveRTCP(bytes)
        }
    }

    /// Handles one decrypted RTP packet (internal for tests).
    func receiveRTP(_ bytes: UnsafeRawBufferPointer) {
        guard let view = try? RTPPacketView(parsing: bytes) else { return }
        let ssrc = view.ssrc, pt = view.payloadType
        let now = RTCPClock.monotonicNanoseconds()
        let feedbackDue: Bool = transportFeedback.withLock { state in
            guard let state, let sequence = view.transportWideSequenceNumber(state.extensions) else { return false }
            state.recorder.record(sequence, arrivalNanoseconds: now)
            return state.isDue(now: now, interval: transportFeedbackNanoseconds)
        }
        var matched: MediaKind?
        var first = false
        for kind in MediaKind.allCases where matched == nil {
            let hit = withReceive(kind) { track -> (hit: Bool, first: Bool) in
                guard track?.accepts(ssrc: ssrc, payloadType: pt) == true else { return (false, false) }
                let before = track!.packets
                track!.update(ssrc: ssrc, sequenceNumber: view.sequenceNumber, timestamp: view.timestamp,
                              payloadLength: view.payloadLength, arrivalNanoseconds: now)
                if let nack = track!.nack {
                    nack.observe(view.sequenceNumber, now: now)
                    if nack.missingCount > 0 { sendDueNACK(&track!, now: now) }
                }
                return (true, before == 0 && track!.packets > 0)
            }
            if hit.hit {
                matched = kind
                first = hit.first
            }
        }
        // Once per section: the packet counter leaves 0 exactly once.
        if first, let matched { continuation.yield(.firstMediaPacket(matched)) }
        let receiver: RTPReceiver?
        switch matched {
        case .audio: receiver = audioHandler.withLock { $0 }
        case .video: receiver = videoHandler.withLock { $0 }
        case nil: receiver = nil
        }
        receiver?.handler(view)
        // After the media handler: the packet goes on first, the feedback about it a few microseconds later.
        if feedbackDue { sendTransportFeedback(now: now) }
    }

    /// Handles one decrypted RTCP compound packet (internal for tests). A compound whose chain of packets does
    /// not add up (RFC 3550 A.2) is dropped whole; a packet of a valid chain that does not decode is skipped.
    /// Transport-wide feedback, the only RTCP sent many times a second, is decoded into ``feedbackScratch``:
    /// nothing is allocated for it. The rest (reports, REMB: about once a second) decode as ``RTCPPacket``.
    func receiveRTCP(_ bytes: UnsafeRawBufferPointer) {
        let arrival = RTCPClock.ntpNow().compact
        let now = RTCPClock.monotonicNanoseconds()
        try? RTCPCompoundPacket.forEachPacket(in: bytes) { header, packet in
            if header.packetType == RTCPPacketType.transportFeedback,
               header.count == RTCPTransportWideFeedback.format {
                receiveTransportWideFeedback(packet, now: now)
            } else if let decoded = try? RTCPPacket(parsing: packet) {
                receive(decoded, arrival: arrival, now: now)
            }
        }
    }

    /// Transport-wide feedback about our packets: counted, and fed to the send-side estimator.
    private func receiveTransportWideFeedback(_ packet: UnsafeRawBufferPointer, now: UInt64) {
        let estimate: Int? = feedbackScratch.withLock { feedback in
            guard (try? feedback.parse(packet)) != nil else { return nil }
            transportFeedback.withLock { state in
                guard state != nil else { return }
                state!.received(feedback)
            }
            let micros = Int64(now / 1000)
            return transportCongestion.withLock { state in
                guard state != nil else { return nil }
                return state!.received(feedback, now: micros)
            }
        }
        if let estimate {
            videoFeedback.withLock { $0 }?.handler(.sendSideEstimatedBitrate(UInt64(estimate)))
        }
    }

    /// One decoded RTCP packet other than transport-wide feedback.
    private func receive(_ packet: RTCPPacket, arrival: UInt32, now: UInt64) {
        let blocks: [RTCPReportBlock]
        switch packet {
        case .senderReport(let sr):
            for kind in MediaKind.allCases {
                withReceive(kind) { track in
                    guard let t = track, t.ssrc == sr.ssrc else { return }
                    track!.lastSenderReport = sr.ntpTimestamp.compact
                    track!.lastSenderReportArrival = now
                    track!.senderReports += 1
                }
            }
            blocks = sr.reports
        case .receiverReport(let rr): blocks = rr.reports
        case .pictureLossIndication(let pli):
            receiveKeyFrameRequest(ssrc: pli.mediaSSRC, .pictureLoss, firSequence: nil)
            return
        case .fullIntraRequest(let fir):
            for entry in fir.entries {
                receiveKeyFrameRequest(ssrc: entry.ssrc, .fullIntraRequest, firSequence: entry.sequenceNumber)
            }
            return
        case .receiverEstimatedMaximumBitrate(let remb):
            let ours = withSend(.video) { $0?.ssrc }
            if let ours, remb.ssrcs.isEmpty || remb.ssrcs.contains(ours) {
                videoFeedback.withLock { $0 }?.handler(.receiverEstimatedMaximumBitrate(remb.bitrate))
            }
            return
        case .genericNACK(let nack):
            retransmit(nack)
            return
        default: return
        }
        for block in blocks {
            for kind in MediaKind.allCases {
                withSend(kind) { track in
                    guard track?.ssrc == block.ssrc else { return }
                    track!.apply(block, arrival: arrival)
                }
            }
        }
    }

    // MARK: - Feedback (network thread)

    /// Sends the NACK due for the video receive track; called with its lock held.
    private func sendDueNACK(_ track: inout ReceiveTrack, now: UInt64) {
        guard let dtls = transport.withLock({ $0 }) else { return }
        track.sendDueNACK(senderSSRC: feedbackSSRC, now: now) { buffer, length in
            try? dtls.sendRTCP(buffer, length: length)
        }
    }

    /// Sends the NACKs due now (RTCP timer: retries while no video packet arrives).
    private func sendDueNACKs() {
        let now = RTCPClock.monotonicNanoseconds()
        withReceive(.video) { track in
            guard track != nil else { return }
            sendDueNACK(&track!, now: now)
        }
    }

    /// A PLI or FIR entry naming `ssrc`: counts it and tells the section's handler (a FIR only when its command
    /// sequence number is new, RFC 5104 §4.3.1.2).
    private func receiveKeyFrameRequest(ssrc: UInt32, _ feedback: RTCPFeedback, firSequence: UInt8?) {
        for kind in MediaKind.allCases {
            let fresh = withSend(kind) { track -> Bool in
                guard let t = track, t.ssrc == ssrc else { return false }
                if let firSequence {
                    if t.lastFullIntraRequest == firSequence { return false }
                    track!.lastFullIntraRequest = firSequence
                }
                track!.keyFrameRequestsReceived += 1
                return true
            }
            guard fresh else { continue }
            let receiver = kind == .audio ? audioFeedback.withLock { $0 } : videoFeedback.withLock { $0 }
            receiver?.handler(feedback)
        }
    }

    /// Writes the next transport-wide sequence number into the packet of `length` bytes in `track`'s buffer and
    /// records it, when the section carries the extension. Called with the section's lock held; allocates nothing.
    private func stampTransportSequence(_ track: SendTrack, length: Int) {
        guard let offset = track.transportSequenceOffset, offset + 2 <= length else { return }
        let now = Int64(RTCPClock.monotonicNanoseconds() / 1000)
        guard let sequence = transportCongestion.withLock({ $0?.stamp(size: length, now: now) }) else { return }
        track.buffer[offset] = UInt8(sequence >> 8)  // big-endian, RFC 8285 §4.2 element value
        track.buffer[offset + 1] = UInt8(truncatingIfNeeded: sequence)
    }

    /// Resends every NACKed packet of our video stream still in the history (same sequence number, RFC 4585
    /// §6.2.1; libsrtp allows the repeated protection with `allow_repeat_tx`).
    private func retransmit(_ nack: RTCPGenericNACK) {
        guard let dtls = transport.withLock({ $0 }) else { return }
        withSend(.video) { track in
            guard let t = track, t.ssrc == nack.mediaSSRC, let history = t.history else { return }
            track!.nacksReceived += 1
            var sent: UInt64 = 0
            for item in nack.items {
                for bit in -1 ..< 16 where bit < 0 || item.lostBitmask & (1 << bit) != 0 {
                    let sequence = item.packetID &+ UInt16(bit + 1)
                    guard let packet = history.packet(sequenceNumber: sequence) else { continue }
                    t.buffer.copyMemory(from: packet)
                    stampTransportSequence(t, length: packet.count)  // a new number, as libwebrtc does
                    if (try? dtls.sendRTP(t.buffer, length: packet.count)) != nil { sent += 1 }
                }
            }
            track!.retransmissions += sent
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
