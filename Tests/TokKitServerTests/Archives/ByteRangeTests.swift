import Foundation
import Testing
@testable import TokKitServer

/// `Range` headers resolved against a file size (RFC 9110, 14.2): one range served, the rest ignored or 416.
@Suite struct ByteRangeTests {
    @Test func singleRangesAreServed() {
        #expect(ByteRange.resolve(nil, size: 100) == .whole)
        #expect(ByteRange.resolve("bytes=0-9", size: 100) == .partial(0...9))
        #expect(ByteRange.resolve("bytes=10-", size: 100) == .partial(10...99))
        #expect(ByteRange.resolve("bytes=-30", size: 100) == .partial(70...99))
        #expect(ByteRange.resolve("bytes=-300", size: 100) == .partial(0...99), "a suffix longer than the file")
        #expect(ByteRange.resolve("bytes=90-500", size: 100) == .partial(90...99), "an end past the file is cut")
        #expect(ByteRange.resolve(" bytes=5-5 ", size: 100) == .partial(5...5))
    }

    @Test func unsatisfiableRangesAre416() {
        #expect(ByteRange.resolve("bytes=100-", size: 100) == .unsatisfiable)
        #expect(ByteRange.resolve("bytes=100-200", size: 100) == .unsatisfiable)
        #expect(ByteRange.resolve("bytes=-0", size: 100) == .unsatisfiable)
        #expect(ByteRange.resolve("bytes=0-", size: 0) == .unsatisfiable)
    }

    @Test func otherHeadersAreIgnored() {
        for header in ["items=0-9", "bytes=0-9,20-29", "bytes=9-0", "bytes=a-b", "bytes=-", "bytes=+1-2",
                       "bytes=0-99999999999999999999", "bytes", "", String(repeating: "9", count: 500)] {
            #expect(ByteRange.resolve(header, size: 100) == .whole, "\(header)")
        }
    }
}

/// Archive ids: fresh ones are valid; a path that is anything else never reaches the store or the disk.
@Suite struct ArchiveIDTests {
    @Test func freshIDsAreValidAndDistinct() {
        let ids = (0..<100).map { _ in ArchiveID.make() }
        #expect(Set(ids).count == 100)
        #expect(ids.allSatisfy(ArchiveID.isValid))
        #expect(ids.allSatisfy { $0.utf8.count == 36 && Array($0.utf8)[14] == UInt8(ascii: "4") })
    }

    @Test func traversalAndOddIDsAreRefused() {
        let valid = ArchiveID.make()
        for id in ["", "..", "../archives.sqlite", "/etc/passwd", valid.uppercased(), valid + "/", "/" + valid,
                   String(valid.dropLast()) + ".", String(valid.dropLast()) + "g", valid.replacingOccurrences(of: "-", with: "/"),
                   "..%2F..%2Fetc%2Fpasswd", String(repeating: "a", count: 36), valid + valid] {
            #expect(!ArchiveID.isValid(id), "\(id)")
        }
    }
}
