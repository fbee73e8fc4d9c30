import Foundation
import Testing
@testable import TokKitJanus

/// Janus is started through util-linux's `setpriv --pdeathsig KILL`, found in `PATH` (not at one fixed path); when it
/// is not there, starting fails with a typed error naming it, never runs Janus without it.
@Suite("Janus setpriv lookup") struct JanusSetprivTests {
    /// A folder holding an executable `setpriv` (a shell script) and a non-executable `janus`; removed by the caller.
    static func folder() throws -> String {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("tk-setpriv-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let tool = folder + "/setpriv"
        try "#!/bin/sh\nexit 0\n".write(toFile: tool, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool)
        try "not executable".write(toFile: folder + "/janus", atomically: true, encoding: .utf8)
        return folder
    }

    @Test func setprivIsFoundInTheSearchPathInOrder() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let empty = folder + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let found = JanusProcessConfiguration.findExecutable("setpriv", searchPath: "\(empty)::\(folder)/")
        #expect(found == folder + "/setpriv", "an empty folder and a trailing slash are fine")
        let argv = try JanusProcess.dyingWithParent(["/usr/bin/janus", "-o"], searchPath: "\(empty):\(folder)")
        #expect(argv == [folder + "/setpriv", "--pdeathsig", "KILL", "--", "/usr/bin/janus", "-o"])
        // A file that is there but not executable is not taken.
        #expect(JanusProcessConfiguration.findExecutable("janus", searchPath: folder) == nil)
    }

    /// A relative folder (`.`, one depending on where the server started) and a directory named `setpriv` are
    /// never taken.
    @Test func relativeFoldersAndDirectoriesAreSkipped() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let decoy = folder + "/decoy"
        try FileManager.default.createDirectory(atPath: decoy + "/setpriv", withIntermediateDirectories: true)
        #expect(JanusProcessConfiguration.findExecutable("setpriv", searchPath: decoy) == nil)
        let here = FileManager.default.currentDirectoryPath
        defer { _ = FileManager.default.changeCurrentDirectoryPath(here) }
        #expect(FileManager.default.changeCurrentDirectoryPath(folder))
        #expect(JanusProcessConfiguration.findExecutable("setpriv", searchPath: ".:decoy") == nil)
        #expect(JanusProcessConfiguration.findExecutable("setpriv", searchPath: ".:\(decoy):\(folder)")
                == folder + "/setpriv")
    }

    @Test func aMissingSetprivIsATypedErrorNamingIt() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let empty = folder + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        for path in [empty, "", "/nonexistent-tk-folder"] {
            #expect(JanusProcessConfiguration.findExecutable("setpriv", searchPath: path) == nil)
            do {
                let argv = try JanusProcess.dyingWithParent(["/usr/bin/janus"], searchPath: path)
                Issue.record("started without setpriv: \(argv)")
            } catch {
                guard case .notInstalled(let what) = error else {
                    Issue.record("not .notInstalled: \(error)")
                    continue
                }
                #expect(what.contains("setpriv") && what.contains("util-linux"), "\(what)")
                #expect("\(error)".contains("scripts/bootstrap"), "\(error)")
            }
        }
    }

    /// This machine (bootstrapped) has it in PATH: the embedded Janus tests depend on it.
    @Test func thisMachineHasSetprivInPath() {
        let found = JanusProcessConfiguration.setpriv
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "-"
        #expect(found != nil, "setpriv not in PATH \(path): run scripts/bootstrap")
        if let found { #expect(found.hasSuffix("/setpriv")) }
    }
}
