import Foundation

/// Throws ``ChromiumError/notLoopbackOnlyNamespace(interfaces:)`` unless this process's network namespace holds
/// only `lo` (and the links of network labs, `tkl…`, which lead only into namespaces a test made: see
/// Tests/TokKitNetworkLab), so that tests driving a browser can never send a packet beyond 127.0.0.1 or a lab.
/// `scripts/test` runs the suite in such a namespace (`unshare -n`). Any thread.
///
/// The interfaces come from `if_nameindex(3)` (netlink, the caller's namespace), not `/sys/class/net`: sysfs
/// shows the namespace of whoever mounted it, so after a bare `unshare -n` it still lists the host's interfaces.
public func requireLoopbackOnlyNamespace() throws(ChromiumError) {
    let interfaces = networkInterfaces()
    guard interfaces.contains("lo"), interfaces.allSatisfy({ $0 == "lo" || $0.hasPrefix("tkl") }) else {
        throw .notLoopbackOnlyNamespace(interfaces: interfaces)
    }
}

/// Names of the network interfaces of the caller's namespace, sorted (netlink, so right after `unshare -n` too).
public func networkInterfaces() -> [String] {
    guard let list = if_nameindex() else { return [] }
    defer { if_freenameindex(list) }
    var names: [String] = []
    var entry = list
    while entry.pointee.if_index != 0, let name = entry.pointee.if_name {
        names.append(String(cString: name))
        entry += 1
    }
    return names.sorted()
}
