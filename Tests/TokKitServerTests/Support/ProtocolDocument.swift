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
