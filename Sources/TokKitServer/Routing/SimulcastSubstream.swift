import TokKitProtocol

/// Which simulcast layer (Janus substream) a routed subscription gets for its preferred resolution.
///
/// A TokKit publisher of a W × H stream sends up to three layers, W/4 × H/4, W/2 × H/2 and W × H (each rounded down
/// to even), leaving out layers smaller than 160 × 90 (TokKitStreaming's `SimulcastLayout`, the same rule as here);
/// Janus numbers them 0 (smallest) to n − 1 in the order of the publisher's `a=ssrc-group:SIM`. The subscription
/// gets the largest layer that fits inside its preferred resolution, the smallest when none does, the full size
/// when it prefers nothing. A stream that announced no size is taken as three layers, and a preference then picks
/// the smallest unless it is at least 640 wide (1) or 1280 wide (2).
enum SimulcastSubstream {
    /// Whether a publisher's offer `sdp` sends simulcast: rids (`a=simulcast:send`, browsers) or an SSRC group
    /// (`a=ssrc-group:SIM`, TokKit). Janus switches (and reports) substreams of such an upstream only.
    static func isSent(in sdp: String) -> Bool {
        sdp.split(whereSeparator: \.isNewline).contains {
            $0.hasPrefix("a=simulcast:send") || $0.hasPrefix("a=ssrc-group:SIM ")
        }
    }

    /// The Janus substream (0...2) for `preferred` of a stream published at `published`.
    static func choose(published: VideoDimensions?, preferred: VideoDimensions?) -> Int {
        guard let published else {
            guard let preferred else { return 2 }
            return preferred.width >= 1280 ? 2 : preferred.width >= 640 ? 1 : 0
        }
        let layers = layerSizes(width: published.width, height: published.height)
        guard let preferred else { return layers.count - 1 }
        return layers.lastIndex { $0.width <= preferred.width && $0.height <= preferred.height } ?? 0
    }

    /// The layer sizes a TokKit publisher sends for a `width` × `height` stream, smallest first.
    static func layerSizes(width: Int, height: Int) -> [(width: Int, height: Int)] {
        var count = 3
        while count > 1, (width >> (count - 1)) & ~1 < 160 || (height >> (count - 1)) & ~1 < 90 { count -= 1 }
        return (0..<count).map { k in
            k == count - 1 ? (width, height) : ((width >> (count - 1 - k)) & ~1, (height >> (count - 1 - k)) & ~1)
        }
    }
}
