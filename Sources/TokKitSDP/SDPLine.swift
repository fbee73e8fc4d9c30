/// One `<type>=<value>` line of a description (RFC 8866 §5), with its 1-based number for error messages.
struct SDPLine {
    let number: Int
    let type: Character
    let value: Substring

    /// Splits `text` into lines (CRLF or LF), enforcing `limits` before anything else is allocated.
    static func split(_ text: String, limits: SDPLimits) throws(SDPError) -> [SDPLine] {
        let size = text.utf8.count
        guard size <= limits.maximumSize else { throw .tooLarge(bytes: size, limit: limits.maximumSize) }
        var lines: [SDPLine] = []
        var number = 0
        // Split on scalars, not Characters: "\r\n" is a single Character and would never equal "\n".
        for raw in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            guard number <= limits.maximumLines else { throw .tooManyLines(limit: limits.maximumLines) }
            let scalars = raw.last == "\r" ? raw.dropLast() : raw
            if scalars.isEmpty { continue }  // trailing newline, or a blank line some stacks emit
            let line = Substring(scalars)
            let bytes = line.utf8
            guard bytes.count <= limits.maximumLineLength else {
                throw .lineTooLong(line: number, length: bytes.count, limit: limits.maximumLineLength)
            }
            guard bytes.count >= 2, let first = bytes.first, (UInt8(ascii: "a") ... UInt8(ascii: "z")).contains(first),
                  bytes[bytes.index(after: bytes.startIndex)] == UInt8(ascii: "=")
            else { throw .malformedLine(line: number) }
            // RFC 8866 §9: no control characters other than TAB inside a value.
            guard !bytes.contains(where: { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F }) else {
                throw .malformedLine(line: number)
            }
            lines.append(SDPLine(number: number, type: Character(Unicode.Scalar(first)),
                                 value: Substring(scalars.dropFirst(2))))
        }
        return lines
    }
}

extension Substring {
    /// Space-separated fields (runs of spaces count as one separator).
    var fields: [Substring] { split(separator: " ") }

    /// `name:value` split at the first colon; `value` is nil without a colon.
    var nameAndValue: (name: Substring, value: Substring?) {
        guard let colon = firstIndex(of: ":") else { return (self, nil) }
        return (self[..<colon], self[index(after: colon)...])
    }
}

/// RFC 8866 §9 `token` characters: visible ASCII except separators.
func isToken(_ s: some StringProtocol) -> Bool {
    !s.isEmpty && s.utf8.allSatisfy { c in
        (0x21 ... 0x7E).contains(c) && !"\"(),/:;<=>?@[\\]{}".utf8.contains(c)
    }
}

/// Visible ASCII without spaces (RFC 8866 `non-ws-string` restricted to ASCII, as ids, ufrags and URIs are).
func isVisible(_ s: some StringProtocol) -> Bool {
    !s.isEmpty && s.utf8.allSatisfy { (0x21 ... 0x7E).contains($0) }
}
