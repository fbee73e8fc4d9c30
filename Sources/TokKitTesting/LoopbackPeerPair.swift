import TokKitPeer

/// A publisher → subscriber ``PeerConnection`` pair over 127.0.0.1, negotiated in memory
/// (``InMemorySignaling``) the way TokKit sessions do it: the publisher offers (it sends), the subscriber answers.
/// For testing media code against real ICE, DTLS-SRTP and RTCP without a server.
public struct LoopbackPeerPair: Sendable {
    public let publisher: PeerConnection
    public let subscriber: PeerConnection
    private let pumps: [Task<Void, Never>]

    /// Why ``connect(timeout:transportFeedbackInterval:publisherClock:bandwidthEstimateBounds:)`` failed.
    public enum ConnectError: Error, Sendable {
        /// The two ends did not connect in time (their states).
        case notConnected(String)
    }

    /// Negotiates and waits (bounded) until both ends are connected; throws if they are not. A nil
    /// `transportFeedbackInterval` leaves transport-cc out (no send-side estimate reaches the pipeline).
    /// `bandwidthEstimateBounds` bounds the publisher's send-side estimate, which starts at the upper bound
    /// (``PeerConfiguration/bandwidthEstimateBounds`` by default). `videoSimulcastSSRCs` makes the publisher offer
    /// simulcast (``PeerConfiguration/videoSimulcastSSRCs``); the subscriber then receives the smallest layer.
    /// `audioRedundancy` has both ends offer and accept RFC 2198 redundant audio
    /// (``PeerConfiguration/audioRedundancy``).
    public static func connect(timeout: Duration = .seconds(30),
                               transportFeedbackInterval: Duration? = .milliseconds(50),
                               publisherClock: PeerClock = .system,
                               bandwidthEstimateBounds: ClosedRange<Int>? = nil,
                               videoSimulcastSSRCs: [UInt32] = [],
                               audioRedundancy: Bool = false) async throws -> LoopbackPeerPair {
        var configuration = PeerConfiguration(rtcpInterval: nil, transportFeedbackInterval: transportFeedbackInterval)
        configuration.audioRedundancy = audioRedundancy
        if let bandwidthEstimateBounds { configuration.bandwidthEstimateBounds = bandwidthEstimateBounds }
        configuration.videoSimulcastSSRCs = videoSimulcastSSRCs
        let publisher = try PeerConnection(configuration: configuration, clock: publisherClock)
        var subscriberConfiguration = PeerConfiguration(audioSSRC: nil, videoSSRC: nil, rtcpInterval: nil)
        subscriberConfiguration.audioRedundancy = audioRedundancy
        let subscriber = try PeerConnection(configuration: subscriberConfiguration)
        let pair = LoopbackPeerPair(publisher: publisher, subscriber: subscriber,
                                    pumps: try InMemorySignaling.negotiate(publisher, subscriber))
        guard await eventually(timeout: timeout, { publisher.state == .connected && subscriber.state == .connected })
        else {
            pair.close()
            throw ConnectError.notConnected("publisher \(publisher.state), subscriber \(subscriber.state)")
        }
        return pair
    }

    /// Closes both ends; their event streams finish, which ends the signalling tasks.
    public func close() {
        publisher.close()
        subscriber.close()
    }

    /// Waits for the signalling tasks to end (after ``close()``).
    public func finished() async { for p in pumps { await p.value } }

    /// The names of both network threads.
    public var networkThreads: [String] { [publisher.networkThreadName, subscriber.networkThreadName].compactMap { $0 } }
}
