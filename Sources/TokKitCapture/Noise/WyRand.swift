/// wyrand, Wang Yi's 64-bit generator (wyhash v4): one add and one 64×64→128-bit multiply per output, passes
/// BigCrush and PractRand, period 2^64. For filling pixels fast, not for anything secret.
///
/// A value type: each thread keeps its own. Allocation-free.
struct WyRand: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    @inline(__always)
    mutating func next() -> UInt64 {
        state &+= 0xa076_1d64_78bd_642f
        let product = state.multipliedFullWidth(by: state ^ 0xe703_7ed1_a0b4_28db)
        return product.high ^ product.low
    }
}
