import Foundation

/// Luma PSNR of a decoded picture against its source, for the recording and archiving tests.
public enum LumaPSNR {
    /// PSNR in dB of `decoded` against `source` (8-bit planes of equal size), 99 when they are identical.
    public static func decibels(_ decoded: [UInt8], _ source: [UInt8]) -> Double {
        var sum = 0.0
        for i in 0..<min(decoded.count, source.count) {
            let d = Double(Int(decoded[i]) - Int(source[i]))
            sum += d * d
        }
        let mse = sum / Double(max(1, source.count))
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }
}
