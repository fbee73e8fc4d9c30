import Foundation
import TokKitTesting

/// One `console.log("TK " + JSON)` line of a test page: its `event` name and fields.
struct PageReport: Sendable {
    let event: String
    private let json: String

    init?(_ consoleMessage: String) {
        guard consoleMessage.hasPrefix("TK "),
              let object = try? JSONSerialization.jsonObject(with: Data(consoleMessage.dropFirst(3).utf8)) as? [String: Any],
              let event = object["event"] as? String
        else { return nil }
        self.event = event
        json = String(consoleMessage.dropFirst(3))
    }

    private var fields: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]) ?? [:]
    }

    subscript(string key: String) -> String? { fields[key] as? String }
    subscript(int key: String) -> Int? { (fields[key] as? NSNumber)?.intValue }
    subscript(bool key: String) -> Bool? { (fields[key] as? NSNumber)?.boolValue }
}

extension BrowserPage {
    /// Every report of the page so far.
    var reports: [PageReport] { console.compactMap(PageReport.init) }

    /// Waits (bounded) for a report `event` satisfying `predicate`. Fails fast on a page `error` report.
    func waitForReport(_ event: String, timeout: Duration = .seconds(20),
                       where predicate: @Sendable (PageReport) -> Bool = { _ in true }) async throws -> PageReport {
        var found: PageReport?
        var pageError: String?
        _ = await eventually(timeout: timeout) {
            let reports = self.reports
            pageError = reports.first { $0.event == "error" }?[string: "message"]
            found = reports.first { $0.event == event && predicate($0) }
            return found != nil || pageError != nil
        }
        if let found { return found }
        throw BrowserPage.Failure(description: pageError.map { "page error: \($0)" }
            ?? "no '\(event)' report within \(timeout); console: \(console.suffix(20))\nstderr: \(stderrTail)")
    }
}
