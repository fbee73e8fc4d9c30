/// Finds a key that appears twice in one JSON object, at any depth.
///
/// `JSONDecoder` accepts `{"role":"subscriber","role":"moderator"}` and keeps one of the values; a token or admin
/// JWT whose claims say two things must be refused instead (issue 17, item 7). Keys are compared after unescaping
/// (`"r\u006fle"` is `"role"`) and as Swift strings, so spellings a decoder could treat as the same key (canonically
/// equivalent ones too) count as duplicates.
///
/// A single forward pass without recursion (nesting depth cannot exhaust the stack), bounded by the input length.
/// It does not validate the JSON: malformed input is for the decoder to refuse. Pure, safe from any thread.
package enum JSONDuplicateKeys {
    /// The first key found twice within one object, or nil if every object's keys are distinct.
    package static func first(in json: [UInt8]) -> String? {
        // One entry per open container: the keys seen so far for an object, nil for an array.
        var open: [Set<String>?] = []
        var expectingKey = false
        var index = 0
        while index < json.count {
            switch json[index] {
            case UInt8(ascii: "{"):
                open.append([])
                expectingKey = true
            case UInt8(ascii: "["):
                open.append(nil)
                expectingKey = false
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if !open.isEmpty { open.removeLast() }
                expectingKey = false
            case UInt8(ascii: ","):
                expectingKey = open.last.map { $0 != nil } ?? false
            case UInt8(ascii: ":"):
                expectingKey = false
            case UInt8(ascii: "\""):
                guard let (string, end) = readString(json, from: index + 1) else { return nil }
                if expectingKey, !open.isEmpty, open[open.count - 1] != nil {
                    if open[open.count - 1]?.insert(string).inserted == false { return string }
                }
                expectingKey = false
                index = end
                continue
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// Reads a JSON string whose opening quote is just before `start`; returns its unescaped value and the index
    /// after the closing quote, or nil if it never closes.
    private static func readString(_ json: [UInt8], from start: Int) -> (String, Int)? {
        var bytes: [UInt8] = []
        var scalars = String.UnicodeScalarView()
        var index = start
        /// Moves the raw bytes read so far into `scalars` (invalid UTF-8 becomes U+FFFD).
        func flush() {
            guard !bytes.isEmpty else { return }
            scalars.append(contentsOf: String(decoding: bytes, as: UTF8.self).unicodeScalars)
            bytes.removeAll(keepingCapacity: true)
        }
        while index < json.count {
            let byte = json[index]
            switch byte {
            case UInt8(ascii: "\""):
                flush()
                return (String(scalars), index + 1)
            case UInt8(ascii: "\\"):
                guard index + 1 < json.count else { return nil }
                let escape = json[index + 1]
                index += 2
                switch escape {
                case UInt8(ascii: "b"): bytes.append(0x08)
                case UInt8(ascii: "f"): bytes.append(0x0C)
                case UInt8(ascii: "n"): bytes.append(0x0A)
                case UInt8(ascii: "r"): bytes.append(0x0D)
                case UInt8(ascii: "t"): bytes.append(0x09)
                case UInt8(ascii: "u"):
                    guard let unit = hex4(json, at: index) else { continue }
                    index += 4
                    flush()
                    if UTF16.isLeadSurrogate(unit), let low = lowSurrogate(json, at: index) {
                        index += 6
                        scalars.append(Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00))!)
                    } else {
                        scalars.append(Unicode.Scalar(UInt32(unit)) ?? "\u{FFFD}")
                    }
                default: bytes.append(escape)  // \" \\ \/ (and anything else, taken literally)
                }
                continue
            default:
                bytes.append(byte)
            }
            index += 1
        }
        return nil
    }

    /// `\uDC00`...`\uDFFF` at `index`, as a UTF-16 unit.
    private static func lowSurrogate(_ json: [UInt8], at index: Int) -> UInt16? {
        guard index + 1 < json.count, json[index] == UInt8(ascii: "\\"), json[index + 1] == UInt8(ascii: "u"),
              let unit = hex4(json, at: index + 2), UTF16.isTrailSurrogate(unit)
        else { return nil }
        return unit
    }

    /// Four hex digits at `index`, or nil.
    private static func hex4(_ json: [UInt8], at index: Int) -> UInt16? {
        guard index + 4 <= json.count else { return nil }
        var value: UInt16 = 0
        for byte in json[index..<index + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }
}
