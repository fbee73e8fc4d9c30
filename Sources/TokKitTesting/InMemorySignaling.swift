import TokKitPeer
import TokKitSDP

/// Signalling between two ``PeerConnection``s of one process, passed in memory: the offer and answer (each through
/// SDP text, as a server would relay them) and every trickled candidate, until each side's events end.
public enum InMemorySignaling {
    /// Negotiates `offerer` → `answerer` (the answer passes through `editAnswer` first) and returns the two tasks
    /// that forward trickled candidates; they end when the connections close.
    public static func negotiate(_ offerer: PeerConnection, _ answerer: PeerConnection,
                                 editAnswer: (inout SessionDescription) -> Void = { _ in }) throws -> [Task<Void, Never>] {
        let offer = try SessionDescription(parsing: try offerer.createOffer().sdp)
        var answer = try SessionDescription(parsing: try answerer.createAnswer(for: offer).sdp)
        editAnswer(&answer)
        try offerer.setRemoteDescription(answer)
        return [trickle(offerer, to: answerer), trickle(answerer, to: offerer)]
    }

    /// Forwards `from`'s trickled candidates and end-of-candidates to `to` until `from`'s events end.
    public static func trickle(_ from: PeerConnection, to: PeerConnection) -> Task<Void, Never> {
        Task {
            for await event in from.events {
                switch event {
                case .localCandidate(let candidate): try? to.addRemoteCandidate(candidate)
                case .gatheringComplete: try? to.addRemoteEndOfCandidates()
                case .stateChanged, .firstMediaPacket: break
                }
            }
        }
    }
}
