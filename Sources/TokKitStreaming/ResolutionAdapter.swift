/// Chooses the size a single camera stream is encoded at from the bitrate it is given: smaller when the bitrate
/// cannot carry the configured size, back up when it can again (what libwebrtc's quality scaler does for a camera,
/// there from the quantizer alone).
///
/// Below some bitrate a size cannot be encoded at its target at all: libvpx's highest quantizer still makes
/// 640x480 of a detailed picture at ~290 kb/s, so on a slower path the frames overshoot, queue and are lost. A
/// smaller picture fits, and looks better than one at the highest quantizer.
///
/// - Down: the target under the current size's floor (``bitsPerPixel`` × pixels × frame rate) and the encoder at
///   its highest quantizer for ``highQuantizerFrames`` delta frames in a row (as small as this size makes them), so
///   that content that fits (a still picture) keeps its size however low the estimate is. It goes at once to the
///   largest size whose floor the target meets.
/// - Up: one size at a time, after the target has stayed at ``upHeadroom`` × the larger size's floor for
///   ``upHold`` without a break.
/// - With a keyframe coming (``keyframeComing(target:)``: a receiver asked for one, a peer became live, the send
///   queue overflowed): down on the last delta frame alone, as the keyframe is made anyway; changing the size later
///   would cost a second one, when the path (a receiver that lost a frame on a congested path) can least carry it.
///
/// Keyframes' quantizers are not counted: at a low target a keyframe comes out near the highest quantizer whatever
/// the content.
///
/// A pure value: the encode thread gives it the target, each frame's quantizer and the time.
struct ResolutionAdapter {
    /// The sizes, as fractions of the configured one, largest first; those under ``minimumPixels`` are left out.
    static let scales: [(numerator: Int, denominator: Int)] = [(1, 1), (3, 4), (1, 2), (1, 4)]
    /// The bits a pixel needs for a size to be encoded at its target: 276 kb/s for 640x480 at 30 frames a second.
    static let bitsPerPixel = 0.03
    /// No size smaller than 160x90's pixels.
    static let minimumPixels = 160 * 90
    /// Frames in a row at ``highQuantizer`` or above before a step down.
    static let highQuantizerFrames = 5
    /// Within 4 of the encoder's highest quantizer (``TokKitCodecs/VP8Encoder/maximumQuantizer``, 56 of 63).
    static let highQuantizer = 52
    /// How far over the larger size's floor the target must be to step up, so that an estimate moving about a
    /// floor does not change the size back and forth.
    static let upHeadroom = 1.3
    static let upHold: Duration = .seconds(2)

    let width: Int
    let height: Int
    let framesPerSecond: Int
    /// The size in force: an index into the sizes.
    private(set) var step = 0
    private let steps: Int
    private var highFrames = 0
    /// Since when the target has been high enough for the next larger size.
    private var upSince: Duration?

    init(width: Int, height: Int, framesPerSecond: Int) {
        (self.width, self.height, self.framesPerSecond) = (width, height, framesPerSecond)
        steps = max(1, Self.scales.prefix { scale in
            let (w, h) = Self.size(width: width, height: height, scale: scale)
            return w * h >= Self.minimumPixels
        }.count)
    }

    /// The size in force.
    var size: (width: Int, height: Int) { size(step) }

    /// The size of step `step` (even, at least 2 × 2).
    func size(_ step: Int) -> (width: Int, height: Int) {
        Self.size(width: width, height: height, scale: Self.scales[step])
    }

    /// The lowest target (bits per second) step `step` is encoded at.
    func floor(_ step: Int) -> Int {
        let (w, h) = size(step)
        return Int((Self.bitsPerPixel * Double(w * h * framesPerSecond)).rounded())
    }

    /// One frame was encoded (`quantizer`: its quantizer, nil if unknown or none was made; `keyframe`: it was one)
    /// with the encoder at `target` bits per second, at `now` (monotonic). Returns whether ``size`` changed: the
    /// next frame is to be encoded at it.
    mutating func update(target: Int, quantizer: Int?, keyframe: Bool = false, at now: Duration) -> Bool {
        if !keyframe { highFrames = (quantizer ?? 0) >= Self.highQuantizer ? highFrames + 1 : 0 }
        if step < steps - 1, target < floor(step), highFrames >= Self.highQuantizerFrames {
            return stepDown(for: target)
        }
        guard step > 0, Double(target) >= Self.upHeadroom * Double(floor(step - 1)) else {
            upSince = nil
            return false
        }
        let since = upSince ?? now
        upSince = since
        guard now - since >= Self.upHold else { return false }
        step -= 1
        return changed()
    }

    /// A keyframe is about to be made, with the encoder at `target` bits per second. Returns whether ``size``
    /// changed: the keyframe is to be made at it. Steps down as ``update(target:quantizer:keyframe:at:)`` does, on
    /// the last delta frame at the highest quantizer instead of ``highQuantizerFrames`` of them.
    mutating func keyframeComing(target: Int) -> Bool {
        guard step < steps - 1, target < floor(step), highFrames >= 1 else { return false }
        return stepDown(for: target)
    }

    /// To the largest smaller size whose floor `target` meets, or the smallest.
    private mutating func stepDown(for target: Int) -> Bool {
        step = (step + 1..<steps).first { floor($0) <= target } ?? steps - 1
        return changed()
    }

    private mutating func changed() -> Bool {
        (highFrames, upSince) = (0, nil)
        return true
    }

    private static func size(width: Int, height: Int, scale: (numerator: Int, denominator: Int))
        -> (width: Int, height: Int)
    {
        (max(2, (width * scale.numerator / scale.denominator) & ~1),
         max(2, (height * scale.numerator / scale.denominator) & ~1))
    }
}
