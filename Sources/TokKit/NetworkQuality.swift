/// A quality score from network statistics, as OpenTok's network test sample computes one: a mean opinion score
/// from 1 (bad) to 4.5 or 5 (excellent).
///
/// - Audio: the ITU-T G.107 E-model, simplified: R = 93.2 − delay impairment − loss impairment (Opus-like codec
///   constants), MOS = 1 + 0.035 R + 7·10⁻⁶ R (R − 60) (100 − R), at most 4.5.
/// - Video: the received bitrate on a log scale between 30 kb/s (score 1) and the bitrate the resolution needs
///   (score 5), as the sample does; below 30 kb/s the score is 0 (no usable video).
///
/// Pure functions; any thread.
public enum NetworkQuality {
    /// Below this, video is not usable.
    public static let minimumVideoBitrate = 30_000.0

    /// The audio MOS for a round-trip time and a packet loss share (0...1).
    public static func audioScore(roundTripTime: Duration, packetLoss: Double) -> Double {
        let delay = roundTripTime / .milliseconds(1) / 2 + 20  // one way, plus a 20 ms frame
        let delayImpairment = 0.024 * delay + (delay > 177.3 ? 0.11 * (delay - 177.3) : 0)
        let loss = min(max(packetLoss, 0), 1) * 100
        let lossImpairment = 19.8 * log(1 + 0.297 * loss)  // Ie for a robust wideband codec, in percent
        let r = 93.2 - delayImpairment - lossImpairment
        guard r > 0 else { return 1 }
        guard r < 100 else { return 4.5 }
        return min(1 + 0.035 * r + 7e-6 * r * (r - 60) * (100 - r), 4.5)
    }

    /// The video score for a received bitrate (bits/s) at a picture of `width`×`height`.
    public static func videoScore(bitrate: Double, width: Int, height: Int) -> Double {
        guard bitrate >= minimumVideoBitrate else { return 0 }
        let target = targetBitrate(width: width, height: height)
        let clamped = min(bitrate, target)
        return log(clamped / minimumVideoBitrate) / log(target / minimumVideoBitrate) * 4 + 1
    }

    /// The bitrate a resolution needs for good VP8 video (bits/s).
    public static func targetBitrate(width: Int, height: Int) -> Double {
        switch width * height {
        case ..<(320 * 240 + 1): 250_000
        case ..<(640 * 480 + 1): 600_000
        case ..<(1280 * 720 + 1): 1_000_000
        default: 2_000_000
        }
    }
}

#if canImport(Glibc)
import func Glibc.log
#endif
