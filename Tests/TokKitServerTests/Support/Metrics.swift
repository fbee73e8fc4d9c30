import Hummingbird
import HummingbirdTesting
import NIOCore
@testable import TokKitServer

/// One scrape of `GET /metrics`, parsed: the value of each series of the text exposition format.
struct Metrics: Sendable {
    let text: String

    /// The value of `name` with exactly `labels` (in any order), or nil when the series is not there.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            let series = line[..<space]
            let seriesName = series.prefix { $0 != "{" }
            guard seriesName == name else { continue }
            var found: [String: String] = [:]
            if let open = series.firstIndex(of: "{"), series.hasSuffix("}") {
                let inside = series[series.index(after: open)..<series.index(before: series.endIndex)]
                for pair in inside.split(separator: ",") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2 else { continue }
                    found[String(parts[0])] = String(parts[1].dropFirst().dropLast())  // the quotes
                }
            }
            if found == labels { return Double(line[line.index(after: space)...]) }
        }
        return nil
    }
}

extension TestServer {
    /// `GET /metrics` with `headers`: status, content type and body.
    func metricsResponse(headers: HTTPFields) async throws
        -> (status: HTTPResponse.Status, contentType: String?, text: String)
    {
        let request = TestClient.Request("/metrics", method: .get, authority: "127.0.0.1", headers: headers)
        return try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
            let response = try await client.execute(request)
            let body = response.body.map { String(buffer: $0) } ?? ""
            return (response.status, response.headers[.contentType], body)
        }
    }

    /// Scrapes `GET /metrics` with admin credentials.
    func metrics() async throws -> Metrics {
        let admin: HTTPFields = [Caller.adminJWTHeader: server.authority.adminToken(now: WallClock.seconds())]
        let response = try await metricsResponse(headers: admin)
        guard response.status == .ok else { throw TestFailure("GET /metrics: \(response.status)") }
        return Metrics(text: response.text)
    }
}
