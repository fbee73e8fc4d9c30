/// What TokKit wants for one media kind in an offer or answer.
///
/// `track` is the local source sent in that section (msid + SSRC + CNAME, RFC 8830, RFC 5576); leave it nil to only
/// receive. Plain data.
public struct SDPLocalMedia: Hashable, Sendable {
    /// The local track that sends on a section.
    public struct Track: Hashable, Sendable {
        public var streamID: String
        public var trackID: String
        public var ssrc: UInt32
        /// RTCP CNAME (RFC 7022): the same for every track of a peer connection.
        public var cname: String
        /// Simulcast (video): the SSRCs of the smaller layers, smallest first, ``ssrc`` being the full-size one.
        /// Written as one `a=ssrc` set each and `a=ssrc-group:SIM <smallest> … <ssrc>` (RFC 5576 §4.2, the legacy
        /// signalling browsers munged in and Janus reads: its substream 0 is the group's first SSRC). Empty: one
        /// layer, no group. At most ``maximumSimulcastLayers`` − 1.
        public var simulcastSSRCs: [UInt32]

        /// The most layers a simulcast track has (browsers and Janus: three).
        public static let maximumSimulcastLayers = 3

        public init(streamID: String, trackID: String, ssrc: UInt32, cname: String, simulcastSSRCs: [UInt32] = []) {
            self.streamID = streamID
            self.trackID = trackID
            self.ssrc = ssrc
            self.cname = cname
            self.simulcastSSRCs = simulcastSSRCs
        }

        /// Every SSRC of the track in simulcast order: smallest layer first, ``ssrc`` last.
        public var layerSSRCs: [UInt32] { simulcastSSRCs + [ssrc] }
    }

    public var track: Track?
    /// Whether remote media of this kind is wanted.
    public var receives: Bool

    public init(track: Track?, receives: Bool = true) {
        self.track = track
        self.receives = receives
    }

    /// The direction this asks for.
    public var direction: SDPDirection { SDPDirection(sends: track != nil, receives: receives) }
}

/// The local transport and media a TokKit peer puts in its offers and answers.
public struct SDPLocalDescriptionOptions: Hashable, Sendable {
    public var iceUfrag: String
    public var icePassword: String
    /// Fingerprint of the local DTLS certificate.
    public var fingerprint: SDPFingerprint
    /// Candidates known when the description is made (trickle the rest, RFC 8838).
    public var candidates: [SDPCandidate]
    /// Write `a=end-of-candidates` (gathering finished, RFC 8840 §4.1).
    public var endOfCandidates: Bool
    /// nil rejects every offered section of that kind (and leaves it out of offers).
    public var audio: SDPLocalMedia?
    public var video: SDPLocalMedia?
    /// Offer / accept `goog-remb` on VP8.
    public var remb: Bool
    /// Offer / accept transport-wide congestion control: the transport-wide sequence number extension
    /// (`a=extmap`, draft-holmer-rmcat-transport-wide-cc-extensions-01 §2) and `transport-cc` feedback on VP8 and
    /// Opus (§3.1). The receiver then reports packet arrival times; see TokKitPeer.
    public var transportWideCC: Bool
    /// Offer / accept redundant audio for Opus (RFC 2198 `red`, as Chromium offers it: ``SDPCodec/red(payloadType:opusPayloadType:)``):
    /// offers list it before Opus; an answer lists it first when the offer has it for the Opus payload type chosen.
    /// Each end then sends every Opus payload again in its next packet.
    public var audioRedundancy: Bool
    /// The role to take when the offer says `actpass` (RFC 8842 §5.3 recommends active).
    public var answerSetup: SDPSetupRole
    public var sessionID: UInt64
    public var sessionVersion: UInt64

    public init(iceUfrag: String, icePassword: String, fingerprint: SDPFingerprint, candidates: [SDPCandidate] = [],
                endOfCandidates: Bool = false, audio: SDPLocalMedia?, video: SDPLocalMedia?, remb: Bool = false,
                transportWideCC: Bool = false, audioRedundancy: Bool = false, answerSetup: SDPSetupRole = .active, sessionID: UInt64,
                sessionVersion: UInt64 = 2) {
        self.iceUfrag = iceUfrag
        self.icePassword = icePassword
        self.fingerprint = fingerprint
        self.candidates = candidates
        self.endOfCandidates = endOfCandidates
        self.audio = audio
        self.video = video
        self.remb = remb
        self.transportWideCC = transportWideCC
        self.audioRedundancy = audioRedundancy
        self.answerSetup = answerSetup
        self.sessionID = sessionID
        self.sessionVersion = sessionVersion
    }

    /// Checks the values against the grammars they are written with (RFC 8839 §5.4, RFC 8830 §2, RFC 8866 §9).
    func validate() throws(SDPError) {
        guard (4 ... 256).contains(iceUfrag.utf8.count), isVisible(iceUfrag), !iceUfrag.contains(":") else {
            throw .invalidOption("ice-ufrag must be 4-256 visible characters")
        }
        guard (22 ... 256).contains(icePassword.utf8.count), isVisible(icePassword) else {
            throw .invalidOption("ice-pwd must be 22-256 visible characters")
        }
        guard !fingerprint.digest.isEmpty, fingerprint.digest.count <= 64, isToken(fingerprint.algorithm) else {
            throw .invalidOption("fingerprint")
        }
        for track in [audio?.track, video?.track].compactMap({ $0 }) {
            guard isVisible(track.streamID), isVisible(track.trackID), isVisible(track.cname),
                  track.streamID.utf8.count <= 64, track.trackID.utf8.count <= 64, track.cname.utf8.count <= 255
            else { throw .invalidOption("track ids and cname must be visible characters without spaces") }
            let layers = track.layerSSRCs
            guard layers.count <= SDPLocalMedia.Track.maximumSimulcastLayers, Set(layers).count == layers.count else {
                throw .invalidOption("simulcast: at most \(SDPLocalMedia.Track.maximumSimulcastLayers) layers, distinct SSRCs")
            }
        }
        guard audio?.track?.simulcastSSRCs.isEmpty ?? true else { throw .invalidOption("simulcast is video only") }
    }
}
