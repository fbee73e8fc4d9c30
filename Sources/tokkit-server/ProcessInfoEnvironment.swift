#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The process environment (for credentials passed as TOKKIT_API_KEY / TOKKIT_API_SECRET).
enum ProcessInfoEnvironment {
    static var current: [String: String] { ProcessInfo.processInfo.environment }
}
