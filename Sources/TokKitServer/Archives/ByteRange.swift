/// An HTTP `Range` request header (RFC 9110, 14.2) resolved against a file's size: a pure value, no I/O.
///
/// One range of `bytes` is served: `bytes=A-B`, `bytes=A-` and `bytes=-N`. A header that is not that (another
/// unit, several ranges, garbage) is ignored and the whole file served (200), as RFC 9110 allows; a well-formed
/// range that starts at or past the end, or a suffix of 0 bytes, is unsatisfiable (416).
enum ByteRange: Equatable, Sendable {
    /// Serve the whole file (no header, or one that is ignored).
    case whole
    /// Serve these bytes (206).
    case partial(ClosedRange<Int64>)
    /// 416, with `Content-Range: bytes */SIZE`.
    case unsatisfiable

    /// Resolves `header` (nil: none) against a file of `size` bytes.
    static func resolve(_ header: String?, size: Int64) -> ByteRange {
        guard let header else { return .whole }
        let trimmed = header.trimmingSpaces
        guard trimmed.utf8.count <= 200, trimmed.hasPrefix("bytes=") else { return .whole }
        let spec = trimmed.dropFirst("bytes=".count)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash], last = spec[spec.index(after: dash)...]
        if first.isEmpty {
            guard let suffix = digits(last) else { return .whole }
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            return .partial(max(0, size - suffix)...(size - 1))
        }
        guard let start = digits(first) else { return .whole }
        let end: Int64
        if last.isEmpty {
            end = size - 1
        } else {
            guard let value = digits(last), value >= start else { return .whole }
            end = min(value, size - 1)
        }
        guard start < size else { return .unsatisfiable }
        return .partial(start...end)
    }

    /// A non-negative decimal of at most 18 digits (no sign, no spaces), else nil.
    private static func digits(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 18,
              text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Int64(text)
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
