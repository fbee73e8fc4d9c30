import Foundation

/// Sine tones in, dominant frequencies out: the audio tests' signal and its analysis.
enum Tone {
    /// `count` samples of a `frequency` Hz sine at 48 kHz starting at sample `offset`, amplitude `amplitude`.
    static func samples(_ frequency: Double, count: Int, offset: Int, amplitude: Double = 8_000) -> [Int16] {
        (0..<count).map { i in Int16(amplitude * sin(2 * .pi * frequency * Double(offset + i) / 48_000)) }
    }

    /// Signal power at `frequency` (Goertzel).
    static func power(_ samples: ArraySlice<Int16>, at frequency: Double) -> Double {
        let k = 2 * cos(2 * .pi * frequency / 48_000)
        var s1 = 0.0, s2 = 0.0
        for x in samples {
            let s0 = Double(x) + k * s1 - s2
            s2 = s1
            s1 = s0
        }
        return s1 * s1 + s2 * s2 - k * s1 * s2
    }

    /// The strongest frequency between 100 Hz and 4 kHz, on a 10 Hz grid.
    static func dominant(_ samples: ArraySlice<Int16>) -> Double {
        stride(from: 100.0, through: 4_000, by: 10).max { power(samples, at: $0) < power(samples, at: $1) } ?? 0
    }
}
