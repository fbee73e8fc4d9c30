import Foundation

/// A JSON value as Janus sends and receives it: the Janus API is JSON objects over the transport, whose plugin
/// payloads (`plugindata.data`, request bodies) are open-ended, so they are kept as values and read with the typed
/// accessors below; nothing is force-unwrapped.
///
/// Integers are kept exactly (`Int64`; Janus's session, handle, room and feed ids are below 2^53); other numbers are
/// `Double`. Value type, `Sendable`.
public enum JanusJSON: Sendable, Hashable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integral number.
    case integer(Int64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JanusJSON])
    /// An object.
    case object([String: JanusJSON])

    /// The member `key` of an object (nil for anything else or a missing key).
    public subscript(key: String) -> JanusJSON? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    /// The string, if this is one.
    public var string: String? { if case .string(let s) = self { s } else { nil } }
    /// The integer, if this is an integral number (a `Double` without a fraction, in range, counts).
    public var integer: Int64? {
        switch self {
        case .integer(let i): i
        case .double(let d) where d.rounded() == d && abs(d) < 9.0e15: Int64(d)
        default: nil
        }
    }
    /// The number as an unsigned id (Janus ids), if this is a non-negative integer.
    public var id: UInt64? { integer.flatMap { $0 >= 0 ? UInt64($0) : nil } }
    /// The boolean, if this is one.
    public var bool: Bool? { if case .bool(let b) = self { b } else { nil } }
    /// The elements, if this is an array.
    public var array: [JanusJSON]? { if case .array(let a) = self { a } else { nil } }
    /// The members, if this is an object.
    public var object: [String: JanusJSON]? { if case .object(let o) = self { o } else { nil } }

    /// Compact JSON text (object keys sorted, so the same value always gives the same text).
    public var jsonText: String {
        var out = ""
        write(to: &out)
        return out
    }

    public var description: String { jsonText }

    /// Parses JSON text; throws ``JanusError/malformedReply(_:)`` for anything that is not JSON.
    public init(parsing text: String) throws(JanusError) {
        do {
            self = try JSONDecoder().decode(JanusJSON.self, from: Data(text.utf8))
        } catch {
            throw .malformedReply("not JSON (\(text.utf8.count) bytes): \(Self.excerpt(text))")
        }
    }

    /// The first 200 characters of `text`, for error messages.
    static func excerpt(_ text: String) -> String {
        text.count <= 200 ? text : String(text.prefix(200)) + "…"
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let i): out += String(i)
        case .double(let d): out += d.isFinite ? "\(d)" : "null"
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let elements):
            out += "["
            for (i, e) in elements.enumerated() {
                if i > 0 { out += "," }
                e.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, key) in members.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                Self.writeString(key, to: &out)
                out += ":"
                members[key]?.write(to: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

extension JanusJSON: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? container.decode(Int64.self) {
            self = .integer(i)
        } else if let d = try? container.decode(Double.self) {
            self = .double(d)
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if let a = try? container.decode([JanusJSON].self) {
            self = .array(a)
        } else {
            self = .object(try container.decode([String: JanusJSON].self))
        }
    }
}

extension JanusJSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(dictionaryLiteral elements: (String, JanusJSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(arrayLiteral elements: JanusJSON...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }

    /// An unsigned id (room, feed, session, handle) as a JSON integer. Ids above `Int64.max` cannot be sent (Janus
    /// itself keeps them below 2^53) and become null.
    public static func id(_ value: UInt64) -> JanusJSON {
        value <= UInt64(Int64.max) ? .integer(Int64(value)) : .null
    }
}
