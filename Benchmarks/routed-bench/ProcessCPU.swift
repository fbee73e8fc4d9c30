import Foundation

/// CPU time of processes, from the kernel: this process by getrusage(2), another by `/proc/PID/stat`.
enum ProcessCPU {
    /// User + system CPU seconds of every thread of this process so far.
    static func own() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// User + system CPU seconds of process `pid` so far (fields 14 and 15 of `/proc/PID/stat`, after the command
    /// name in parentheses, which may hold spaces); nil if it cannot be read.
    static func of(_ pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")")
        else { return nil }
        // After ")": state is field 3, so utime (14) and stime (15) are at offsets 11 and 12.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The 1-minute load average (`/proc/loadavg`), for context: the machine is shared.
    static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "?"
    }

    private static func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
}
