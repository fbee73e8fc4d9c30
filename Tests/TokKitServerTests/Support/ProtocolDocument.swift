import Foundation

/// Docs/Protocol.md read as data: its tables, each under the heading it appears in, so that conformance tests
/// walk the document's own rows (a row the server does not honour fails; a row no test knows fails too).
///
/// Cells are trimmed; `\|` inside a cell is a literal `|`. Pure value, `Sendable`.
struct ProtocolDocument: Sendable {
    struct Table: Sendable, CustomStringConvertible {
        /// The nearest heading above the table, without its `#`s (e.g. "6.3 Client messages", "2. Limits").
        let section: String

        /// The heading's number without a trailing dot ("6.3", "2"), or its first word for an unnumbered one ("Roles").
        var key: String {
            let first = section.split(separator: " ").first.map(String.init) ?? ""
            return first.hasSuffix(".") ? String(first.dropLast()) : first
        }
        let header: [String]
        let rows: [[String]]

        /// The column named `name` (case-insensitive prefix match on the header cell).
        func column(_ name: String) throws -> Int {
            guard let index = header.firstIndex(where: { $0.lowercased().hasPrefix(name.lowercased()) }) else {
                throw TestFailure("table in \(section) has no column \(name): \(header)")
            }
            return index
        }

        /// Each row's cell in column `name`.
        func cells(_ name: String) throws -> [String] {
            let index = try column(name)
            return rows.map { index < $0.count ? $0[index] : "" }
        }

        var description: String { "\(section) [\(header.joined(separator: " | "))]" }
    }

    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Docs/Protocol.md")

    let text: String
    let tables: [Table]

    static func load() throws -> ProtocolDocument {
        try ProtocolDocument(text: String(contentsOf: url, encoding: .utf8))
    }

    init(text: String) throws {
        self.text = text
        var tables: [Table] = []
        var section = ""
        var block: [String] = []
        func flush() throws {
            defer { block = [] }
            guard !block.isEmpty else { return }
            guard block.count >= 2, block[1].allSatisfy({ "|-: ".contains($0) }) else {
                throw TestFailure("malformed table under \(section): \(block[0])")
            }
            let rows = block.map(Self.cells)
            tables.append(Table(section: section, header: rows[0], rows: Array(rows.dropFirst(2))))
        }
        var inCode = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") { inCode.toggle() }
            if inCode { continue }
            if line.hasPrefix("|") {
                block.append(line)
                continue
            }
            try flush()
            if line.hasPrefix("#") { section = String(line.drop { $0 == "#" }).trimmingCharacters(in: .whitespaces) }
        }
        try flush()
        self.tables = tables
    }

    /// The tables under the heading numbered `section` ("6.3", "2"), or whose first word it is ("Roles").
    func tables(in section: String) -> [Table] {
        tables.filter { $0.key == section }
    }

    /// The one table under `section`.
    func table(in section: String) throws -> Table {
        let found = tables(in: section)
        guard found.count == 1 else { throw TestFailure("\(found.count) tables under \(section) in Protocol.md") }
        return found[0]
    }

    /// The cells of a `| a | b |` line; `\|` is a literal bar.
    static func cells(_ line: String) -> [String] {
        var cells: [String] = []
        var current = ""
        var escaped = false
        for character in line.dropFirst() {
            if escaped {
                current.append(character == "|" ? "|" : "\\\(character)")
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "|" {
                cells.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        return cells
    }
}

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
