import Foundation

/// CPU time per thread of this process, from /proc/self/task/<tid>/stat (utime + stime, in clock ticks), and its
/// context switches, from .../status, with the thread's name. Threads are grouped by name with any trailing number
/// removed (`tk-venc-3` and `tk-venc-4` both count as `tk-venc-N`), so a breakdown reads the same from run to run.
enum ThreadCPU {
    /// CPU seconds per thread id, with the thread's name.
    static func snapshot() -> [Int: (name: String, value: Double)] {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var result: [Int: (name: String, value: Double)] = [:]
        guard let tids = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return result }
        for tid in tids {
            guard let id = Int(tid),
                  let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")"),
                  let open = stat.firstIndex(of: "(")
            else { continue }
            let name = String(stat[stat.index(after: open)..<close])
            // Fields after the name: state is field 3; utime and stime are fields 14 and 15.
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            result[id] = (name, (user + system) / ticks)
        }
        return result
    }

    /// `name` with a trailing run of digits (after `-` or a space) replaced by `N`.
    static func group(_ name: String) -> String {
        let trimmed = name.reversed().drop(while: \.isNumber)
        guard trimmed.count < name.count else { return name }
        return String(trimmed.reversed()) + "N"
    }

    /// Context switches per thread id so far (voluntary + involuntary, from /proc/self/task/<tid>/status), with the
    /// thread's name.
    static func switches() -> [Int: (name: String, value: Int)] {
        var result: [Int: (name: String, value: Int)] = [:]
        guard let tids = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return result }
        for tid in tids {
            guard let id = Int(tid),
                  let status = try? String(contentsOfFile: "/proc/self/task/\(tid)/status", encoding: .utf8)
            else { continue }
            var name = "", count = 0
            for line in status.split(separator: "\n") {
                if line.hasPrefix("Name:") { name = line.dropFirst(5).trimmingCharacters(in: .whitespaces) }
                if line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:"),
                   let n = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
                    count += n
                }
            }
            result[id] = (name, count)
        }
        return result
    }

    /// Per thread group, how much `value` grew between two snapshots (``snapshot()`` or ``switches()``): threads
    /// that started in between count from zero.
    static func difference<Value: AdditiveArithmetic & Comparable>(
        from before: [Int: (name: String, value: Value)], to after: [Int: (name: String, value: Value)]
    ) -> [(group: String, value: Value)] {
        var groups: [String: Value] = [:]
        for (tid, now) in after {
            let earlier = before[tid].flatMap { $0.name == now.name ? $0.value : nil } ?? .zero
            groups[group(now.name), default: .zero] += now.value - earlier
        }
        return groups.map { ($0.key, $0.value) }.sorted { $0.value > $1.value }
    }
}
