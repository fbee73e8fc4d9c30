/// The rate at which our packets reached the receiver, R_hat of draft-ietf-rmcat-gcc-02 §5.5 ("the incoming
/// bitrate measured over a T seconds window", T = 0.5 s here), from the arrival times and sizes in transport-wide
/// feedback.
///
/// Measured per feedback message, so that a lost message does not read as a fall of the rate: each message
/// contributes the bytes it reports received and the receiver time they took, from the previous message's last
/// arrival when it follows that message directly (its first sequence number is the next one), otherwise from its
/// own first arrival (whose bytes then do not count: they arrived at the start of the span). A lost message takes
/// its bytes and its time away together. R_hat is the sum of bytes over the sum of spans of the messages whose last
/// arrival is within ``window`` of the newest one. The consecutive windows used before counted a lost message's
/// time but not its bytes: behind a capped reverse path, with a third of the feedback lost, R_hat read a third
/// under what was delivered, and each AIMD decrease to β × R_hat went that much too far
/// (`SendSideBandwidthEstimatorBottleneckTests`). ``recentBitsPerSecond`` is the same over ``recentWindow``, for
/// the cut at an over-use (libwebrtc's acknowledged rate is measured over 150 ms likewise): at a bottleneck's onset
/// the half second before it still holds the rate sent before, and a cut to β × R_hat stayed over the new capacity
/// (network-bench's bottleneck row: 870 kb/s at a 500 kb/s cap, three more cuts and 0.4 s of loss to reach it). A
/// plain value: a fixed ring, no allocation.
public struct ReceivedRateMeter: Sendable {
    /// T of §5.5 (µs).
    public static let window: Int64 = 500_000
    /// Spans shorter than this in total give no rate yet (µs).
    public static let minimumSpan: Int64 = 100_000
    /// The span of ``recentBitsPerSecond`` (µs).
    public static let recentWindow: Int64 = 150_000

    /// The rate over the last window in bits per second, nil before the first.
    public private(set) var bitsPerSecond: Int?
    /// The rate over the messages of the last ``recentWindow`` (at least ``minimumSpan`` of them), nil before.
    public private(set) var recentBitsPerSecond: Int?
    private struct Message { var end: Int64, bytes: Int, span: Int64 }
    /// A ring of the last messages (feedback every 50-100 ms: 64 cover more than the window).
    private var messages = (0 ..< 64).map { _ in Message(end: 0, bytes: 0, span: 0) }
    private var head = 0
    private var count = 0
    /// The previous message's last sequence number (extended by 1: the one expected next) and last arrival.
    private var expectedNext: UInt16?
    private var lastArrival: Int64?

    public init() {}

    /// Takes one feedback message's packets (send order; lost ones have no arrival time).
    public mutating func add(_ packets: [TransportPacketResult]) {
        guard let first = packets.first, let last = packets.last else { return }
        let follows = expectedNext == first.sequenceNumber
        var start = follows ? lastArrival : nil
        var end: Int64?
        var bytes = 0
        for packet in packets {
            guard let arrival = packet.arrivalTime else { continue }
            if start == nil {
                start = arrival  // the span starts here: this packet's bytes arrived before it
            } else {
                bytes += packet.size
            }
            end = max(end ?? arrival, arrival)
        }
        expectedNext = last.sequenceNumber &+ 1
        guard let start, let end else {
            lastArrival = nil  // nothing arrived: the next message measures from its own first arrival
            return
        }
        lastArrival = end
        guard end > start else { return }
        messages[head] = Message(end: end, bytes: bytes, span: end - start)
        head = (head + 1) % messages.count
        count = min(count + 1, messages.count)
        var totalBytes = 0
        var totalSpan: Int64 = 0
        var recent: (bytes: Int, span: Int64)?
        for i in 0 ..< count {
            let message = messages[(head - 1 - i + messages.count) % messages.count]
            guard end - message.end < Self.window else { break }
            if recent == nil, end - message.end >= Self.recentWindow, totalSpan >= Self.minimumSpan {
                recent = (totalBytes, totalSpan)
            }
            totalBytes += message.bytes
            totalSpan += message.span
        }
        if let (bytes, span) = recent ?? (totalSpan >= Self.minimumSpan ? (totalBytes, totalSpan) : nil) {
            recentBitsPerSecond = Int(Int64(bytes) * 8 * 1_000_000 / span)
        }
        if totalSpan >= Self.minimumSpan {
            bitsPerSecond = Int(Int64(totalBytes) * 8 * 1_000_000 / totalSpan)
        }
    }
}
