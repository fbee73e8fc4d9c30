import Foundation
import TokKitICETestSupport
import TokKitPeer
import TokKitSDP

/// A publisher → subscriber peer-connection pair over 127.0.0.1, negotiated in-process the way the team's
/// convention does it: the publisher offers (it sends), the subscriber answers.
struct LoopbackPeers {
    let publisher: PeerConnection
    let subscriber: PeerConnection
    private let pumps: [Task<Void, Never>]

    /// Negotiates and waits (bounded) until both ends are connected; throws if they are not. A nil
    /// `transportFeedbackInterval` leaves transport-cc out (no send-side estimate reaches the pipeline).
    static func connect(timeout: Duration = .seconds(30),
                        transportFeedbackInterval: Duration? = .milliseconds(50)) async throws -> LoopbackPeers {
        let publisher = try PeerConnection(configuration: PeerConfiguration(
            rtcpInterval: nil, transportFeedbackInterval: transportFeedbackInterval))
        let subscriber = try PeerConnection(configuration: PeerConfiguration(audioSSRC: nil, videoSSRC: nil,
                                                                             rtcpInterval: nil))
        let offer = try SessionDescription(parsing: try publisher.createOffer().sdp)
        let answer = try SessionDescription(parsing: try subscriber.createAnswer(for: offer).sdp)
        try publisher.setRemoteDescription(answer)
        let peers = LoopbackPeers(publisher: publisher, subscriber: subscriber,
                                  pumps: [trickle(publisher, to: subscriber), trickle(subscriber, to: publisher)])
        guard await eventually(within: timeout, { publisher.state == .connected && subscriber.state == .connected })
        else {
            peers.close()
            throw LoopbackError.notConnected("publisher \(publisher.state), subscriber \(subscriber.state)")
        }
        return peers
    }

    /// Closes both ends; their event streams finish, which ends the trickle tasks.
    func close() {
        publisher.close()
        subscriber.close()
    }

    /// Waits for the trickle tasks to end (after ``close()``).
    func finished() async { for p in pumps { await p.value } }

    /// The names of both network threads.
    var networkThreads: [String] { [publisher.networkThreadName, subscriber.networkThreadName].compactMap { $0 } }

    private static func trickle(_ from: PeerConnection, to: PeerConnection) -> Task<Void, Never> {
        Task {
            for await event in from.events {
                switch event {
                case .localCandidate(let c): try? to.addRemoteCandidate(c)
                case .gatheringComplete: try? to.addRemoteEndOfCandidates()
                case .stateChanged, .firstMediaPacket: break
                }
            }
        }
    }
}

enum LoopbackError: Error { case notConnected(String) }

/// Names of this process's threads (from /proc/self/task).
func threadNames() -> [String] { processThreads().map(\.name) }

/// Open file descriptors of this process.
func openFileDescriptors() -> Int {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
}
