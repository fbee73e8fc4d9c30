import Testing

/// Every table of Docs/Protocol.md is walked by a conformance suite: a new table (or one moved to another section)
/// fails here until a suite checks its rows against the server.
@Suite struct DocumentCoverageTests {
    /// The tables, by section, and the suite that walks each.
    static let walked: [(section: String, suite: String)] = [
        ("Roles", "ClientMessageConformanceTests.theRoleTableAgreesWithTheMessageTable"),
        ("2", "LimitConformanceTests"),
        ("3", "ErrorCodeConformanceTests"),
        ("4", "TokenConformanceTests"),
        ("5.2", "RESTConformanceTests.quickStartRows"),
        ("5.3", "RESTConformanceTests.adminCallRows"),
        ("5.4", "RESTConformanceTests.sessionCallRows"),
        ("5.5", "RESTConformanceTests.connectionRuleRows"),
        ("5.6", "MetricsConformanceTests"),
        ("5.6", "MetricsConformanceTests"),
        ("5.7", "ArchiveConformanceTests"),
        ("6.3", "ClientMessageConformanceTests"),
        ("6.4", "ServerMessageConformanceTests"),
        ("6.6", "CloseCodeConformanceTests"),
    ]

    @Test func everyTableIsWalkedByASuite() throws {
        let document = try ProtocolDocument.load()
        #expect(document.tables.map(\.key) == Self.walked.map(\.section),
                "tables in Protocol.md: \(document.tables.map(\.description))")
    }
}
