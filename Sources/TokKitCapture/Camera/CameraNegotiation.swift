/// Picks the pixel format, frame size and frame interval to ask a camera for.
///
/// Among every (format, size, interval) the camera lists, in this order of importance:
/// 1. the size nearest the desired one (smallest |Δwidth| + |Δheight|);
/// 2. the highest frame rate not above the desired one (within 0.1 %, for UVC's 100 ns units); if every
///    rate is above it, the lowest;
/// 3. the format, preferring NV12, then I420 (`YU12`), then YUYV, then MJPEG: the cheapest to deliver first;
/// 4. the larger size (downscaling beats upscaling).
///
/// So a camera offering 1280x720 at 10 fps in YUYV and at 30 fps in MJPEG streams MJPEG when 720p30 is asked
/// for, and YUYV when both give what is asked. Emulated formats (libv4l2's software conversions) and formats
/// TokKit cannot convert are never chosen. Pure and stateless.
enum CameraNegotiation {
    /// The formats TokKit streams, most preferred first.
    static let formatPreference: [FourCC] = [.nv12, .yu12, .yuyv, .mjpeg, .jpeg]
    /// How far above the desired rate a rate may be and still count as "not above" it.
    static let rateTolerance = 1e-3

    /// The configuration to ask the driver for.
    struct Choice: Hashable, Sendable {
        var fourCC: FourCC
        var width: Int
        var height: Int
        /// Nil when the driver lists no intervals for that size (the driver's current rate is kept).
        var interval: CameraFrameInterval?
    }

    /// The best configuration among `formats` for `preferences`, or nil if no format is usable.
    static func choose(from formats: [CameraFormat], for preferences: CameraPreferences) -> Choice? {
        var best: (key: Key, choice: Choice)?
        for format in formats {
            guard format.pixelFormat != nil, let rank = formatPreference.firstIndex(of: format.fourCC) else { continue }
            // A format without listed sizes is asked at the desired size; the driver adjusts it.
            let sizes = format.sizes.isEmpty
                ? [CameraFrameSize(width: preferences.width, height: preferences.height, intervals: [])]
                : format.sizes
            for size in sizes where size.width > 0 && size.height > 0 {
                let interval = bestInterval(size.intervals, for: preferences.framesPerSecond)
                let key = Key(
                    sizeDistance: format.sizes.isEmpty
                        ? Int.max : abs(size.width - preferences.width) + abs(size.height - preferences.height),
                    rate: rateKey(interval, desired: preferences.framesPerSecond),
                    formatRank: rank,
                    negativeArea: -(size.width * size.height))
                if best == nil || key < best!.key {
                    best = (key, Choice(fourCC: format.fourCC, width: size.width, height: size.height, interval: interval))
                }
            }
        }
        return best?.choice
    }

    /// The interval with the highest rate not above `desired`, else the one with the lowest rate.
    static func bestInterval(_ intervals: [CameraFrameInterval], for desired: Double) -> CameraFrameInterval? {
        intervals.filter { $0.framesPerSecond > 0 }.min { rateKey($0, desired: desired) < rateKey($1, desired: desired) }
    }

    /// Lower is better: rates not above `desired` first (closest first), then rates above it (closest first),
    /// then unknown. Differences are counted in hundredths of a frame per second.
    static func rateKey(_ interval: CameraFrameInterval?, desired: Double) -> RateKey {
        guard let fps = interval?.framesPerSecond, fps > 0 else { return RateKey(tier: 2, shortfall: 0) }
        if fps <= desired * (1 + rateTolerance) {
            return RateKey(tier: 0, shortfall: Int((max(0, desired - fps) * 100).rounded()))
        }
        return RateKey(tier: 1, shortfall: Int(((fps - desired) * 100).rounded()))
    }

    struct RateKey: Comparable {
        var tier: Int
        var shortfall: Int
        static func < (a: Self, b: Self) -> Bool { (a.tier, a.shortfall) < (b.tier, b.shortfall) }
    }

    struct Key: Comparable {
        var sizeDistance: Int
        var rate: RateKey
        var formatRank: Int
        var negativeArea: Int
        static func < (a: Self, b: Self) -> Bool {
            if a.sizeDistance != b.sizeDistance { return a.sizeDistance < b.sizeDistance }
            if a.rate != b.rate { return a.rate < b.rate }
            return (a.formatRank, a.negativeArea) < (b.formatRank, b.negativeArea)
        }
    }
}
