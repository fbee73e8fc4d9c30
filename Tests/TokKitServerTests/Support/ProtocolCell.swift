import Foundation

/// What the cells of Protocol.md's tables say, in the notation the document uses.
enum ProtocolCell {
    /// A field as a table lists it: `` `name`? (default) ``.
    struct Field: Hashable, Sendable {
        var name: String
        var optional: Bool
        /// The parenthesized text after the field, if any (a default such as `""`, `true`, `"camera"`, or a note).
        var note: String?

        /// The default value when `note` is a JSON literal (`""`, `true`, `"camera"`, `5`); nil for prose notes.
        var defaultJSON: String? {
            guard let note, let data = note.data(using: .utf8),
                  (try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)) != nil
            else { return nil }
            return note
        }
    }

    /// The fields of a "fields" cell: backticked identifiers at parenthesis depth 0, each with a `?` right after it
    /// when optional and the parenthesized note that follows it. A cell of `–` has none.
    static func fields(_ cell: String) -> [Field] {
        var fields: [Field] = []
        var depth = 0
        var index = cell.startIndex
        var note = ""
        while index < cell.endIndex {
            let character = cell[index]
            switch character {
            case "(":
                if depth == 0 { note = "" } else { note.append(character) }
                depth += 1
            case ")":
                depth -= 1
                if depth == 0, !fields.isEmpty, fields[fields.count - 1].note == nil {
                    fields[fields.count - 1].note = note.trimmingCharacters(in: .whitespaces)
                } else if depth > 0 {
                    note.append(character)
                }
            case "`" where depth == 0:
                guard let end = cell[cell.index(after: index)...].firstIndex(of: "`") else { return fields }
                let name = String(cell[cell.index(after: index)..<end])
                var after = cell.index(after: end)
                let optional = after < cell.endIndex && cell[after] == "?"
                if optional { after = cell.index(after: after) }
                // A backticked shape after a field (`{width,height}`) describes it; only identifiers are fields.
                if name.first.map({ $0.isLetter || $0 == "_" }) == true, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
                    fields.append(Field(name: name, optional: optional, note: nil))
                }
                index = after
                continue
            default:
                if depth > 0 { note.append(character) }
            }
            index = cell.index(after: index)
        }
        return fields
    }

    /// Every backticked word of a cell, in order.
    static func backticked(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// Every whole number of a cell, digit groups separated by a space joined ("65 536" is 65536, "1 000" 1000).
    static func numbers(_ cell: String) -> [Int] {
        cell.matches(of: /\d{1,3}(?:[ \u{2009}]\d{3})+(?!\d)|\d+/).compactMap { match in
            Int(match.output.filter(\.isNumber))
        }
    }

    /// The four-digit protocol error codes of a cell (1004...2000), in order.
    static func errorCodes(_ cell: String) -> [Int] {
        numbers(cell).filter { (1_000...2_999).contains($0) }
    }
}
