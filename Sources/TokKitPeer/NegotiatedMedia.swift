import TokKitDTLS
import TokKitSDP

/// What an offer/answer exchange agreed, read from the descriptions alone (no state, no I/O): the peer's ICE
/// credentials and candidates, the DTLS role and the peer's fingerprint, the transport-wide CC extension id, and per
/// section whether we send (payload type, transport-wide number or not) and receive (payload type, the peer's SSRC
/// when its description names one). ``PeerConnection`` builds its transport, tracks and feedback units from it.
struct NegotiatedMedia: Equatable {
    struct Send: Equatable {
        let payloadType: UInt8
        /// The transport-wide sequence number extension id, when this section carries it.
        let transportSequenceID: UInt8?
        /// Audio: the RFC 2198 `red` payload type carrying ``payloadType`` blocks, when the answer has it (both ends
        /// offered it): every packet is sent in it.
        var redundancyPayloadType: UInt8? = nil
    }

    struct Receive: Equatable {
        let payloadType: UInt8
        let remoteSSRC: UInt32?
        /// Audio: the `red` payload type the peer may send ``payloadType`` blocks in.
        var redundancyPayloadType: UInt8? = nil
    }

    let remoteCredentials: (ufrag: String, pwd: String)
    /// The peer's candidates inside its description (`candidate:…`), and whether it said it has no more.
    let remoteCandidates: [String]
    let remoteEndOfCandidates: Bool
    let role: DTLSRole
    let remoteFingerprint: DTLSFingerprint
    /// Transport-wide CC, when negotiated (one id for the whole BUNDLE).
    let transportWideCCID: UInt8?
    let send: [MediaKind: Send]
    let receive: [MediaKind: Receive]

    /// Reads the exchange: `remote` is the peer's description, `answer` the answer (ours or the peer's), `local`
    /// our own; `wantsTransportCC` whether we offered or accept transport-cc. Throws
    /// ``PeerError/invalidRemoteDescription(_:)`` when credentials, fingerprint or a compatible setup are missing.
    init(remote: SessionDescription, answer: SessionDescription, local: SessionDescription,
         wantsTransportCC: Bool) throws(PeerError) {
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
        do throws(DTLSError) {
            role = try DTLSSetup.role(local: localSetup, remote: remoteSetup)
            remoteFingerprint = try DTLSFingerprint(sdpValue: sdpFingerprint.sdp)
        } catch { throw .dtls(error) }
        remoteCredentials = (ufrag, pwd)
        let accepted = remote.media.filter { !$0.isRejected }
        remoteCandidates = accepted.flatMap { $0.candidates.map(\.description) }
        remoteEndOfCandidates = accepted.contains(where: \.endOfCandidates)

        // Transport-wide CC: the answer echoes the offer's extension id.
        let answered = answer.media.filter { !$0.isRejected }
        var transportID: UInt8?
        if wantsTransportCC,
           let id = answered.lazy.compactMap({ $0.extensionID(SDPExtensionMap.transportWideCCURI) }).first,
           answered.contains(where: { $0.codecs.contains { $0.feedback.contains(.transportWideCC) } }) {
            transportID = id
        }
        transportWideCCID = transportID

        let answerIsLocal = answer == local
        var send: [MediaKind: Send] = [:], receive: [MediaKind: Receive] = [:]
        for kind in MediaKind.allCases {
            // The media codec: the first that is not redundancy (an answer may list `red` first).
            guard let a = answered.first(where: { $0.kind == kind.rawValue }),
                  let codec = a.codecs.first(where: { !$0.matches("red") }) else { continue }
            let red = kind == .audio
                ? a.codecs.first(where: { $0.isRedundantAudio(of: codec.payloadType) })?.payloadType : nil
            let direction = a.effectiveDirection
            if answerIsLocal ? direction.sends : direction.receives {
                // Stamped only on a section that negotiated the extension under the transport's id.
                let stamped = a.extensionID(SDPExtensionMap.transportWideCCURI) == transportID ? transportID : nil
                send[kind] = Send(payloadType: codec.payloadType, transportSequenceID: stamped,
                                  redundancyPayloadType: red)
            }
            if answerIsLocal ? direction.receives : direction.sends {
                let remoteSSRC = accepted.first { $0.kind == kind.rawValue }?.sources.first?.ssrc
                receive[kind] = Receive(payloadType: codec.payloadType, remoteSSRC: remoteSSRC,
                                        redundancyPayloadType: red)
            }
        }
        self.send = send
        self.receive = receive
    }

    static func == (a: Self, b: Self) -> Bool {
        a.remoteCredentials == b.remoteCredentials && a.remoteCandidates == b.remoteCandidates
            && a.remoteEndOfCandidates == b.remoteEndOfCandidates && a.role == b.role
            && a.remoteFingerprint == b.remoteFingerprint && a.transportWideCCID == b.transportWideCCID
            && a.send == b.send && a.receive == b.receive
    }
}
