import Foundation

/// Sine tones in, dominant frequencies out: the audio tests' signal and its analysis.
enum Tone {
    /// `count` samples of a `frequency` Hz sine at 48 kHz starting at sample `offset`, amplitude `amplitude`.
    static func samples(_ frequency: Double, count: Int, offset: Int, amplitude: Double = 8_000) -> [Int16] {
        (0..<count).map { i in Int16(amplitude * sin(2 * .pi * frequency * Double(offset + i) / 48_000)) }
    }

    /// `count` samples at 48 kHz of a voice-like signal from sample `offset`: harmonics of a gliding 120-180 Hz
    /// fundamental under a syllable-rate envelope, with a little noise. Opus' voice activity detector hears speech
    /// in it (it codes in-band FEC only there; a steady tone soon stops counting as speech).
    static func voice(count: Int, offset: Int) -> [Int16] {
        (0..<count).map { i in
            let n = offset + i
            let t = Double(n) / 48_000
            let f0 = 150 + 30 * sin(2 * .pi * 0.7 * t)
            let envelope = 0.55 + 0.45 * sin(2 * .pi * 4 * t)
            var x = 0.0
            for h in 1...8 { x += sin(2 * .pi * f0 * Double(h) * t) / Double(h) }
            let hash = UInt64(n) &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let noise = Double(Int64(bitPattern: hash) >> 40) / Double(1 << 23)
            return Int16(clamping: Int(6_000 * envelope * x + 300 * noise))
        }
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
