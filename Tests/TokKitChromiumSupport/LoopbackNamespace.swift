import Foundation

/// Throws ``ChromiumError/notLoopbackOnlyNamespace(interfaces:)`` unless `/sys/class/net` lists only `lo`,
/// so that tests driving a browser can never send a packet beyond 127.0.0.1. `scripts/test` runs the suite in
/// such a namespace (`unshare -n`). Any thread.
public func requireLoopbackOnlyNamespace() throws(ChromiumError) {
    let interfaces = ((try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/net")) ?? []).sorted()
    guard interfaces == ["lo"] else { throw .notLoopbackOnlyNamespace(interfaces: interfaces) }
}
