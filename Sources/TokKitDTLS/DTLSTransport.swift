import Synchronization
import TokKitICE
import TokKitSRTP

/// DTLS-SRTP over an ``ICEAgent`` (RFC 5763/5764): the handshake with the peer's certificate checked against
/// the fingerprint from its SDP, SRTP keys exported into an outbound and an inbound ``SRTPSession``, and the
/// media path: ``sendRTP(_:length:)``/``sendRTCP(_:length:)`` protect in place and send; received SRTP/SRTCP
/// is decrypted and handed to the media handler.
///
/// Use: create it on an ``ICEAgent`` (it installs itself as the agent's receive handler and demultiplexes
/// DTLS from SRTP per RFC 7983), call ``start()`` once ICE is connected, watch ``events`` for
/// ``DTLSTransportState/connected``. A fingerprint mismatch or failed handshake ends in
/// ``DTLSTransportState/failed`` with no keys, so no media is sent or accepted. ``close()`` sends
/// close_notify; close the agent afterwards.
///
/// Threading: all methods may be called from any thread. Handshake steps, retransmission timers
/// (`DTLSv1_get_timeout`/`DTLSv1_handle_timeout` on the agent's network thread) and the media handler run on
/// the agent's network thread; the OpenSSL connection is guarded by one lock, each SRTP direction by its own.
/// Sending and receiving a packet allocate nothing.
public final class DTLSTransport: Sendable {
    /// Receives decrypted media on the network thread; the buffer is valid only during the call.
    public typealias MediaHandler = @Sendable (MediaPacketKind, UnsafeMutableRawBufferPointer) -> Void
    /// Loss injection (tests): sees each received SRTP/SRTCP datagram before it is decrypted (the RTP header,
    /// RFC 3711 §3.1, and the first 8 bytes of RTCP are in clear) and returns true to drop it as if the network
    /// had lost it. Runs on the network thread; must not block.
    @_spi(Testing) public typealias ReceiveDropFilter = @Sendable (MediaPacketKind, UnsafeRawBufferPointer) -> Bool

    /// The DTLS role (from ``DTLSSetup/role(local:remote:)``).
    public let role: DTLSRole
    /// The ICE agent carrying the datagrams.
    public let ice: ICEAgent
    /// Our certificate (its fingerprint goes in our SDP).
    public let certificate: DTLSCertificate
    /// State changes, in order. Finishes after ``close()``.
    public let events: AsyncStream<DTLSTransportState>

    private let connection: Mutex<DTLSConnection>
    private let outbound = Mutex<SRTPSession?>(nil)
    private let inbound = Mutex<SRTPSession?>(nil)
    private let media = Mutex<MediaReceiver?>(nil)
    private let dropFilter = Mutex<DropFilterBox?>(nil)
    /// Whether ``dropFilter`` is set: without one, the receive path pays one relaxed load and no lock.
    private let hasDropFilter = Atomic<Bool>(false)
    private let receiveBuffer = ReceiveBuffer(capacity: 65_536)
    private let continuation: AsyncStream<DTLSTransportState>.Continuation
    private let counters = Counters()

    /// The media handler in a non-generic struct, so that reading it under the lock once per packet does not wrap
    /// the stored closure in more reabstraction thunks each time (see `ICEAgentCore.Receiver`).
    private struct MediaReceiver: Sendable {
        let handler: MediaHandler
    }

    /// The test drop filter, boxed for the same reason as ``MediaReceiver``.
    private struct DropFilterBox: Sendable {
        let filter: ReceiveDropFilter
    }

    /// Prepares the DTLS connection over `ice`. `profiles` are offered in preference order in `use_srtp`;
    /// `mtu` bounds each handshake datagram (DTLS fragments larger flights).
    public init(ice: ICEAgent, role: DTLSRole, certificate: DTLSCertificate, remoteFingerprint: DTLSFingerprint,
                profiles: [SRTPProfile] = [.aeadAes128Gcm, .aes128CmSha1_80], mtu: Int = 1200) throws(DTLSError) {
        self.ice = ice
        self.role = role
        self.certificate = certificate
        let send: (UnsafeRawBufferPointer) -> Void = { [ice] datagram in
            // A flight sent before ICE has a pair is lost; the retransmission timer sends it again.
            try? ice.send(datagram)
        }
        connection = Mutex(try DTLSConnection(role: role, certificate: certificate,
                                              remoteFingerprint: remoteFingerprint, profiles: profiles, mtu: mtu,
                                              send: send))
        (events, continuation) = AsyncStream.makeStream(of: DTLSTransportState.self)
        ice.setReceiveHandler { [weak self] datagram in self?.receive(datagram) }
    }

    deinit { close() }

    /// The current state.
    public var state: DTLSTransportState {
        connection.withLock { c in
            switch c.phase {
            case .new: .new
            case .connecting: .connecting
            case .connected: .connected
            case .closed: .closed
            case .failed: .failed
            }
        }
    }

    /// Why the transport failed, once ``state`` is ``DTLSTransportState/failed``.
    public var failure: DTLSError? { connection.withLock { $0.failure } }

    /// The negotiated SRTP profile, once connected.
    public var srtpProfile: SRTPProfile? { connection.withLock { $0.keys?.profile } }

    /// From ``start()`` (server: first ClientHello) to keys, once connected.
    public var handshakeDuration: Duration? { connection.withLock { $0.handshakeDuration } }

    /// The keys of the finished handshake (for tests: they are secret).
    var negotiatedKeys: DTLSSRTPKeys? { connection.withLock { $0.keys } }

    /// A snapshot of the receive counters.
    public var statistics: DTLSTransportStatistics { counters.snapshot() }

    /// Sets the handler for decrypted RTP/RTCP (network thread). `nil` drops media.
    public func setMediaHandler(_ handler: MediaHandler?) {
        media.withLock { $0 = handler.map(MediaReceiver.init) }
    }

    /// Installs (or with `nil` removes) a loss-injection seam for tests: `filter` decides, before decryption,
    /// which received media datagrams are dropped as lost, so that a retransmission of the same packet still
    /// passes SRTP replay protection as it would after real loss. Dropped datagrams count in
    /// ``DTLSTransportStatistics/droppedByFilter``. Without a filter (the default) the receive path costs one
    /// relaxed atomic load more. Any thread.
    @_spi(Testing) public func setReceiveDropFilter(_ filter: ReceiveDropFilter?) {
        dropFilter.withLock { $0 = filter.map(DropFilterBox.init) }
        hasDropFilter.store(filter != nil, ordering: .releasing)
    }

    /// Starts the handshake (the client sends its ClientHello). Call once ICE is connected; calling earlier
    /// works but costs a retransmission timeout. Idempotent.
    public func start() {
        advance { $0.start() }
    }

    /// Protects the RTP packet in `buffer[0..<length]` in place and sends it. `buffer` needs
    /// ``SRTPProfile/rtpOverhead`` spare bytes after the packet. Throws ``DTLSError/notConnected`` before
    /// the handshake and after failure.
    public func sendRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(DTLSError) {
        try send(buffer, length: length, rtcp: false)
    }

    /// Protects the RTCP compound packet in `buffer[0..<length]` in place and sends it. `buffer` needs
    /// ``SRTPProfile/rtcpOverhead`` spare bytes after the packet.
    public func sendRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(DTLSError) {
        try send(buffer, length: length, rtcp: true)
    }

    /// Sends close_notify (if connected), drops the SRTP keys and detaches from the agent. Does not close
    /// the agent. Idempotent.
    public func close() {
        let changes = connection.withLock { c in
            let changes = c.close()
            dropKeys()
            return changes
        }
        media.withLock { $0 = nil }
        setReceiveDropFilter(nil)
        ice.setReceiveHandler(nil)
        for change in changes { continuation.yield(change) }
        continuation.finish()
    }

    // MARK: - Data path

    @inline(__always)
    private func send(_ buffer: UnsafeMutableRawBufferPointer, length: Int, rtcp: Bool) throws(DTLSError) {
        let n = try outbound.withLock { (session: inout SRTPSession?) throws(DTLSError) -> Int in
            guard let session else { throw .notConnected }
            do throws(SRTPError) {
                return rtcp ? try session.protectRTCP(buffer, length: length)
                            : try session.protectRTP(buffer, length: length)
            } catch {
                throw .srtp(error)
            }
        }
        do throws(ICEError) {
            try ice.send(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        } catch {
            throw .ice(error)
        }
    }

    /// Every datagram from ICE, on the network thread.
    private func receive(_ datagram: UnsafeRawBufferPointer) {
        let kind: MediaPacketKind
        switch PacketClass(datagram) {
        case .dtls:
            advance { $0.receive(datagram) }
            return
        case .rtp: kind = .rtp
        case .rtcp: kind = .rtcp
        case .other: return
        }
        if hasDropFilter.load(ordering: .relaxed), let box = dropFilter.withLock({ $0 }), box.filter(kind, datagram) {
            counters.droppedByFilter.add(1, ordering: .relaxed)
            return
        }
        let buffer = receiveBuffer.bytes
        guard datagram.count <= buffer.count else { counters.malformed.add(1, ordering: .relaxed); return }
        buffer.copyMemory(from: datagram)
        let length = inbound.withLock { (session: inout SRTPSession?) -> Int? in
            guard let session else {
                counters.droppedWithoutKeys.add(1, ordering: .relaxed)
                return nil
            }
            do throws(SRTPError) {
                return kind == .rtp ? try session.unprotectRTP(buffer, length: datagram.count)
                                    : try session.unprotectRTCP(buffer, length: datagram.count)
            } catch {
                counters.count(error)
                return nil
            }
        }
        guard let length else { return }
        if kind == .rtp {
            counters.rtpReceived.add(1, ordering: .relaxed)
        } else {
            counters.rtcpReceived.add(1, ordering: .relaxed)
        }
        if let current = media.withLock({ $0 }) {
            current.handler(kind, UnsafeMutableRawBufferPointer(rebasing: buffer[0..<length]))
        }
    }

    // MARK: - Control

    /// Runs one step of the connection under its lock; keys go into the SRTP sessions (or are dropped) in
    /// the same critical section, so ``state`` never says connected before media can flow. Then reports
    /// the changes and arms the retransmission timer while handshaking.
    private func advance(_ step: (DTLSConnection) -> [DTLSTransportState]) {
        let changes = connection.withLock { c in
            var changes = step(c)
            if changes.contains(.connected), !installKeys(c.keys) { changes += c.fail(.srtp(.initializationFailed)) }
            if changes.contains(.failed) || changes.contains(.closed) { dropKeys() }
            return changes
        }
        for change in changes { continuation.yield(change) }
        armTimer()
    }

    private func installKeys(_ keys: DTLSSRTPKeys?) -> Bool {
        guard let keys else { return false }
        let sending = outbound.withLock { session in
            session = try? SRTPSession(material: keys.local, direction: .outbound)
            return session != nil
        }
        let receiving = inbound.withLock { session in
            session = try? SRTPSession(material: keys.remote, direction: .inbound)
            return session != nil
        }
        return sending && receiving
    }

    private func dropKeys() {
        outbound.withLock { $0 = nil }
        inbound.withLock { $0 = nil }
    }

    private func armTimer() {
        guard let delay = connection.withLock({ $0.timerToArm() }) else { return }
        ice.schedule(after: delay) { [weak self] in self?.advance { $0.timerFired() } }
    }
}

/// Receive-path counters (relaxed atomics: statistics only).
private final class Counters: Sendable {
    let rtpReceived = Atomic<Int>(0)
    let rtcpReceived = Atomic<Int>(0)
    let authenticationFailures = Atomic<Int>(0)
    let replays = Atomic<Int>(0)
    let droppedWithoutKeys = Atomic<Int>(0)
    let malformed = Atomic<Int>(0)
    let droppedByFilter = Atomic<Int>(0)

    func count(_ error: SRTPError) {
        switch error {
        case .authenticationFailed: authenticationFailures.add(1, ordering: .relaxed)
        case .replayed, .tooOld: replays.add(1, ordering: .relaxed)
        default: malformed.add(1, ordering: .relaxed)
        }
    }

    func snapshot() -> DTLSTransportStatistics {
        DTLSTransportStatistics(
            rtpReceived: rtpReceived.load(ordering: .relaxed), rtcpReceived: rtcpReceived.load(ordering: .relaxed),
            authenticationFailures: authenticationFailures.load(ordering: .relaxed),
            replays: replays.load(ordering: .relaxed), droppedWithoutKeys: droppedWithoutKeys.load(ordering: .relaxed),
            malformed: malformed.load(ordering: .relaxed), droppedByFilter: droppedByFilter.load(ordering: .relaxed))
    }
}
