/// The spatial layers of a simulcast video stream: their sizes and their shares of the bitrate.
///
/// From the encode size W × H and up to ``maximumLayers`` layers asked for: layer *k* of *n* (0: the smallest) is
/// W / 2^(n−1−k) × H / 2^(n−1−k), rounded down to even (I420), as browsers make them (`scaleResolutionDownBy` 4, 2,
/// 1). Layers whose size would fall below ``minimumWidth`` × ``minimumHeight`` are left out, so a small capture
/// gets fewer layers (640x360: 160x90, 320x180, 640x360; 320x240: 160x120, 320x240; 240x160: one layer).
///
/// The bitrate is split by weights 1 : 4 : 11 over three layers (the smallest gets 1/16, the middle 1/4, the full
/// size the rest, about what libwebrtc gives 180p/360p/720p) and 1 : 4 over two: the low layers stay watchable
/// however low the total goes, each layer at least ``minimumLayerBitrate`` (the full size takes the shortfall).
///
/// Plain value; usable from any thread.
public struct SimulcastLayout: Hashable, Sendable {
    /// One layer: its encode size and target bitrate.
    public struct Layer: Hashable, Sendable {
        public var width: Int
        public var height: Int
        public var bitrate: Int
    }

    /// The most layers (browsers and Janus: three; Janus's substreams 0, 1, 2).
    public static let maximumLayers = 3
    /// The smallest layer size kept.
    public static let minimumWidth = 160
    public static let minimumHeight = 90
    /// The least bitrate a layer gets (libvpx's rate control still makes pictures at 160x90).
    public static let minimumLayerBitrate = 30_000

    /// The layers, smallest first; the last is the full encode size. Never empty.
    public let layers: [Layer]

    /// The layers of a `width` × `height` encode at `bitrate` bits per second, at most `maximumLayers` of them
    /// (clamped to 1...``maximumLayers``); with `exact`, that many whatever the size (a layer below the minimum
    /// size is made anyway, at least 2x2: a peer that announced that many SSRCs gets a layer on each).
    public init(width: Int, height: Int, bitrate: Int, maximumLayers: Int, exact: Bool = false) {
        var count = min(max(maximumLayers, 1), Self.maximumLayers)
        while count > 1, !exact {
            let scale = 1 << (count - 1)
            if Self.even(width / scale) >= Self.minimumWidth && Self.even(height / scale) >= Self.minimumHeight { break }
            count -= 1
        }
        let shares = Self.split(bitrate, layers: count)
        layers = (0..<count).map { k in
            let scale = 1 << (count - 1 - k)
            return Layer(width: k == count - 1 ? width : max(2, Self.even(width / scale)),
                         height: k == count - 1 ? height : max(2, Self.even(height / scale)), bitrate: shares[k])
        }
    }

    /// The bitrates of `layers` layers (smallest first) sharing `total`: weights 1 : 4 : 11 (three), 1 : 4 (two),
    /// each smaller layer at least ``minimumLayerBitrate``, the full size the rest (at least that too); one layer
    /// takes `total` as it is.
    public static func split(_ total: Int, layers: Int) -> [Int] {
        guard layers > 1 else { return [total] }
        let weights: [Int] = switch layers {
        case 2: [1, 4]
        default: [1, 4, 11]
        }
        let sum = weights.reduce(0, +)
        var shares = weights.dropLast().map { max(total / sum * $0, minimumLayerBitrate) }
        shares.append(max(total - shares.reduce(0, +), minimumLayerBitrate))
        return shares
    }

    /// The number of layers.
    public var count: Int { layers.count }

    private static func even(_ value: Int) -> Int { value & ~1 }
}
