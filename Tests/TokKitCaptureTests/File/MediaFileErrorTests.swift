import Glibc
import Testing
@testable import TokKitCapture

@Suite struct MediaFileErrorTests {
    @Test func errnoValuesMapToTheirCases() {
        #expect(MediaFileError.system("open", path: "p", errno: ENOENT) == .noSuchFile(path: "p"))
        #expect(MediaFileError.system("open", path: "p", errno: ENOTDIR) == .noSuchFile(path: "p"))
        #expect(MediaFileError.system("open", path: "p", errno: EACCES) == .permissionDenied(path: "p"))
        #expect(MediaFileError.system("open", path: "p", errno: EROFS) == .permissionDenied(path: "p"))
        #expect(MediaFileError.system("open", path: "p", errno: EISDIR) == .isDirectory(path: "p"))
        #expect(MediaFileError.system("write", path: "p", errno: ENOSPC) == .noSpace(path: "p"))
        #expect(MediaFileError.system("write", path: "p", errno: EIO) == .systemError(operation: "write", path: "p", errno: EIO))
    }

    @Test func descriptionsNameThePath() {
        #expect(MediaFileError.noSuchFile(path: "/x/y.y4m").description == "/x/y.y4m: no such file or directory")
        #expect(MediaFileError.systemError(operation: "write", path: "/f", errno: EIO).description.contains("errno \(EIO)"))
    }
}
