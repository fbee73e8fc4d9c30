import Foundation

/// This process's CPU time and resident memory, read from the kernel (getrusage(2), /proc/self/status).
enum ProcessUsage {
    /// CPU seconds (user + system) of every thread of this process so far.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Resident set size now, in MiB (`VmRSS`), or 0 when /proc cannot be read.
    static func residentMiB() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kib = line.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Double($0) } ?? 0
            return kib / 1024
        }
        return 0
    }

    static func seconds(_ time: timeval) -> Double {
        Double(time.tv_sec) + Double(time.tv_usec) / 1e6
    }
}
