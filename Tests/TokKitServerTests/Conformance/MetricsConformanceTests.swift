import Foundation
import HTTPTypes
import Testing
import TokKitProtocol
@testable import TokKitServer

/// Section 5.6 of Docs/Protocol.md against a live server: the call's credentials and reply, and every series of the
/// series table exposed with the documented type.
@Suite struct MetricsConformanceTests {
    @Test func theCallAndEverySeriesAreAsDocumented() async throws {
        let tables = try ProtocolDocument.load().tables(in: "5.6")
        try #require(tables.count == 2, "\(tables.map(\.description))")
        let (calls, series) = (tables[0], tables[1])
        let (callColumn, replyColumn) = (try calls.column("call"), try calls.column("reply"))
        let (seriesColumn, typeColumn) = (try series.column("series"), try series.column("type"))
        try await TestServer.with { server in
            for cells in calls.rows {
                #expect(cells[callColumn].contains("GET /metrics"), "\(cells)")
                let status = try #require(ProtocolCell.numbers(cells[replyColumn]).first)
                // Without admin credentials: 401 / 1004, nothing shown.
                let (refused, refusal) = try await server.http(.get, "/metrics")
                #expect(refused == .unauthorized && TestServer.restError(refusal)?.code.rawValue == 1004)
                let (granted, body) = try await server.http(.get, "/metrics", headers: LimitConformanceTests.admin(server))
                #expect(Int(granted.code) == status)
                let text = String(decoding: body, as: UTF8.self)
                for row in series.rows {
                    let type = row[typeColumn].trimmingCharacters(in: .whitespaces)
                    // `name{label}` and `a`, `b` cells: each backquoted name without its labels.
                    let names = row[seriesColumn].matches(of: /`(\w+)(?:\{[^}]*\})?`/).map { String($0.output.1) }
                    #expect(!names.isEmpty, "\(row)")
                    for name in names {
                        #expect(text.contains("# TYPE \(name) \(type)\n"), "\(name) is not exposed as a \(type)")
                    }
                }
            }
        }
    }
}
