/// Why the network lab could not do what a test asked. Every case names the command or the condition, so a test
/// that fails on a machine without the lab's tools says which one is missing.
public enum LabError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A tool the lab needs is not installed (`scripts/bootstrap --tests` installs it).
    case toolMissing(String)
    /// The test process's network namespace has interfaces besides `lo` (these): it is not one `unshare -n` made,
    /// and the lab refuses to attach anything to it. Run the tests as `scripts/test` does.
    case notInPrivateNamespace(interfaces: [String])
    /// A command exited with a failure status.
    case commandFailed(command: String, status: Int32, output: String)
    /// A command or a wait did not finish in time.
    case timedOut(String)
    /// The lab has no room for another host (at most ``NetworkLab/maximumHosts``).
    case tooManyHosts
    /// A process in a lab host could not be started.
    case launchFailed(String)

    public var description: String {
        switch self {
        case .toolMissing(let tool): "network lab: \(tool) is not installed (run scripts/bootstrap --tests)"
        case .notInPrivateNamespace(let interfaces):
            "network lab: the test process's network namespace has \(interfaces.joined(separator: ", ")) besides lo; "
                + "run the tests inside unshare -n (scripts/test does)"
        case .commandFailed(let command, let status, let output):
            "network lab: `\(command)` exited with \(status): \(output)"
        case .timedOut(let what): "network lab: timed out: \(what)"
        case .tooManyHosts: "network lab: no room for another host"
        case .launchFailed(let why): "network lab: cannot start a process: \(why)"
        }
    }
}
