/// The packet loss an Opus encoder plans its in-band FEC for (`OPUS_SET_PACKET_LOSS_PERC`), following the loss
/// receivers report (RTCP fraction lost, RFC 3550 §6.4.1), as WebRTC's Opus encoder does: reports are smoothed,
/// then rounded to 0, 1, 5, 10 or 20 %, and a step is taken only past a margin around it, so the setting does not
/// flap. FEC bits are spent where packets get lost, not on a clean path.
struct OpusLossTuning {
    /// The setting, in percent.
    private(set) var percent: Int
    private var smoothed: Double

    /// Starts at `percent` (the encoder's setting before any report).
    init(percent: Int) {
        self.percent = percent
        smoothed = Double(percent) / 100
    }

    /// Takes one reported loss fraction (0...1); returns the new setting when it changed.
    mutating func update(reportedLoss: Double) -> Int? {
        smoothed = 0.5 * smoothed + 0.5 * min(max(reportedLoss, 0), 1)
        let next = Self.step(for: smoothed, from: percent)
        guard next != percent else { return nil }
        percent = next
        return next
    }

    /// The step for `loss`: each step's threshold is moved away from the current setting by its margin (up when
    /// climbing to it, down when it is the current one or below), so a loss hovering at a threshold keeps the setting.
    static func step(for loss: Double, from current: Int) -> Int {
        for (step, margin) in [(20, 0.02), (10, 0.01), (5, 0.01), (1, 0.0)] {
            let threshold = Double(step) / 100 + (step > current ? margin : -margin)
            if loss >= threshold { return step }
        }
        return 0
    }
}
