/// Reads the `rid` of a client message that `JSONDecoder` refused as a whole (too deeply nested, malformed after
/// the `rid`, ...), so that its `error` 1011 can still carry the `rid` (Docs/Protocol.md, 6.1: "with its `rid` if
/// that could be read").
///
/// Scans once, without recursion (nesting depth cannot exhaust the stack), for a key spelled exactly `"rid"` in the
/// outermost object, followed by `:` and an integer literal (`-`? digits, no fraction or exponent) that fits `Int`.
/// Returns nil when there is none. Pure, safe from any thread.
package enum RequestIDScanner {
    package static func rid(in json: some Collection<UInt8>) -> Int? {
        let bytes = Array(json)
        var index = 0
        while index < bytes.count, isSpace(bytes[index]) { index += 1 }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
        var depth = 1
        var expectingKey = true  // the next string at depth 1 is a key
        index += 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                expectingKey = false
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                guard depth > 0 else { return nil }  // the outermost object ended
                expectingKey = false
            case UInt8(ascii: ","):
                expectingKey = depth == 1
            case UInt8(ascii: "\""):
                let start = index + 1
                guard let end = stringEnd(bytes, from: start) else { return nil }
                if expectingKey, bytes[start..<end].elementsEqual("rid".utf8) {
                    return integerValue(bytes, after: end + 1)
                }
                expectingKey = false
                index = end + 1
                continue
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The index of the closing quote of a string starting at `start`, or nil if it never closes.
    private static func stringEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""): return index
            case UInt8(ascii: "\\"): index += 2
            default: index += 1
            }
        }
        return nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// After optional whitespace, `:`, optional whitespace, an integer literal ending at whitespace, `,` or `}`.
    private static func integerValue(_ bytes: [UInt8], after start: Int) -> Int? {
        var index = start
        while index < bytes.count, isSpace(bytes[index]) { index += 1 }
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
        index += 1
        while index < bytes.count, isSpace(bytes[index]) { index += 1 }
        let first = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let digits = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        guard index > digits, index - digits <= 20 else { return nil }
        guard index == bytes.count || isSpace(bytes[index]) || bytes[index] == UInt8(ascii: ",")
            || bytes[index] == UInt8(ascii: "}")
        else { return nil }
        return Int(String(decoding: bytes[first..<index], as: UTF8.self))
    }
}
