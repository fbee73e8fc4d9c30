/// The time between two frames as a V4L2 driver states it: a fraction of a second (`v4l2_fract`).
///
/// UVC cameras state intervals in 100 ns units (`333333/10000000` for 30 fps), so compare rates with a
/// tolerance, as ``CameraNegotiation`` does. A plain value, usable from any thread.
public struct CameraFrameInterval: Hashable, Sendable, CustomStringConvertible {
    /// Seconds per frame, numerator.
    public var numerator: UInt32
    /// Seconds per frame, denominator.
    public var denominator: UInt32

    /// The interval `numerator/denominator` seconds.
    public init(numerator: UInt32, denominator: UInt32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// The interval of `fps` whole frames per second (`1/fps`).
    public static func fps(_ fps: UInt32) -> CameraFrameInterval { .init(numerator: 1, denominator: fps) }

    /// Frames per second (0 for a malformed interval with a zero term).
    public var framesPerSecond: Double {
        numerator == 0 || denominator == 0 ? 0 : Double(denominator) / Double(numerator)
    }

    /// The interval as a duration (zero for a malformed interval).
    public var duration: Duration {
        denominator == 0 ? .zero : .nanoseconds(Int64(numerator) * 1_000_000_000 / Int64(denominator))
    }

    /// The rate, rounded to two decimals: `30 fps`, `29.97 fps`.
    public var description: String {
        let fps = (framesPerSecond * 100).rounded() / 100
        return fps == fps.rounded() ? "\(Int(fps)) fps" : "\(fps) fps"
    }
}
