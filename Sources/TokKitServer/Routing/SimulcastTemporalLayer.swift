import TokKitProtocol

/// Which VP8 temporal layer (Janus `temporal`) a routed subscription gets for its preferred frame rate.
///
/// TokKit publishers of routed streams and Chromium's VP8 simulcast encode three temporal layers in the pattern
/// 0, 2, 1, 2: layer 0 alone is a quarter of the publisher's frame rate, layers 0 and 1 half of it, all three the
/// full rate. The subscription gets the highest layer whose rate does not exceed its preference (layer 0 when even
/// that is above it), all layers when it prefers nothing. The publisher's rate is the stream's announced `frameRate`
/// (`publish`); a stream that announced none (an older client) is taken at ``nominalPublisherFrameRate``, the
/// TokKit publisher's default and a browser camera's usual rate. Pure.
enum SimulcastTemporalLayer {
    /// The frame rate assumed for a routed publisher that announced none.
    static let nominalPublisherFrameRate = ProtocolLimits.assumedFrameRate
    /// The highest layer (all frames).
    static let top = 2

    /// The Janus temporal layer (0...2) for `preferred` frames per second of a stream sent at `publisherFrameRate`.
    static func choose(preferredFrameRate preferred: Double?,
                       publisherFrameRate: Double = nominalPublisherFrameRate) -> Int {
        guard let preferred, preferred.isFinite, publisherFrameRate > 0 else { return top }
        // A small tolerance (0.1 % of the publisher's rate) so that 7.5 of 30 (exactly a quarter) chooses layer 0
        // despite rounding, and so does 7.5 of a 29.97 fps stream (a quarter is 7.4925).
        let epsilon = 1e-3 * publisherFrameRate
        if preferred <= publisherFrameRate / 4 + epsilon { return 0 }
        if preferred <= publisherFrameRate / 2 + epsilon { return 1 }
        return top
    }
}
