import NIOPosix
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The archive directory's file work (create, list, remove), run on NIO's blocking thread pool so that no caller
/// blocks the cooperative pool on the disk.
enum ArchiveFiles {
    /// A WebM file of an archive's directory.
    struct Found: Sendable, Hashable {
        var name: String
        var size: Int64
        /// Last modification, milliseconds since the Unix epoch.
        var modified: Int64
    }

    /// Creates `path` and its parents (blocking; used where the caller may block).
    static func makeDirectory(_ path: String) throws(ArchiveError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw .storage("cannot create \(path): \(error)")
        }
    }

    /// Creates `path` on the blocking pool.
    static func makeDirectoryOffPool(_ path: String) async throws(ArchiveError) {
        let failure: ArchiveError? = await offPool { () -> ArchiveError? in
            do throws(ArchiveError) {
                try makeDirectory(path)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Removes `path` and everything in it (missing: nothing to do).
    static func remove(_ path: String) async throws(ArchiveError) {
        let failure: String? = await offPool { () -> String? in
            guard FileManager.default.fileExists(atPath: path) else { return nil }
            do {
                try FileManager.default.removeItem(atPath: path)
                return nil
            } catch {
                return "\(error)"
            }
        }
        if let failure { throw .storage("cannot remove \(path): \(failure)") }
    }

    /// The `.webm` regular files directly in `path`, by name (none when it is missing).
    static func webmFiles(in path: String) async -> [Found] {
        await offPool { () -> [Found] in
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            return names.filter { $0.hasSuffix(".webm") && !$0.hasPrefix(".") }.sorted().compactMap { name in
                guard let info = regularFile("\(path)/\(name)") else { return nil }
                return Found(name: name, size: info.size, modified: info.modified)
            }
        }
    }

    /// The size of a regular file, nil when it is missing or not a regular file.
    static func size(of path: String) async -> Int64? {
        await offPool { regularFile(path)?.size }
    }

    /// `stat(2)` of a regular file (symbolic links followed): size and last modification in ms; nil otherwise.
    private static func regularFile(_ path: String) -> (size: Int64, modified: Int64)? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return (Int64(info.st_size), Int64(info.st_mtim.tv_sec) * 1_000 + Int64(info.st_mtim.tv_nsec) / 1_000_000)
    }

    /// Runs `work` on NIO's singleton blocking pool.
    private static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        do {
            return try await NIOThreadPool.singleton.runIfActive(work)
        } catch {
            return work()  // the pool is shut down (process exit): do it here
        }
    }
}

extension ArchiveFiles {
    /// True for a name that stays in its directory: 1-200 bytes of `A-Z a-z 0-9 - _ .`, not starting with `.`.
    static func isPlainFileName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...200).contains(bytes.count), bytes[0] != UInt8(ascii: ".") else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                true
            default: false
            }
        }
    }

    /// Removes directory `path` if it holds nothing (an archive that never started).
    static func removeIfEmpty(_ path: String) async {
        if (await webmFiles(in: path)).isEmpty { try? await remove(path) }
    }
}
