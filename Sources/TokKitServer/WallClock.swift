#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Wall-clock time for timestamps on the wire (creation times, token times). Deadlines use `ContinuousClock`.
enum WallClock {
    static func milliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
    static func seconds() -> Int64 { Int64(Date().timeIntervalSince1970.rounded(.down)) }
}
