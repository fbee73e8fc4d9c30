// The one chat format of TokKit's chat clients: the `signaling-chat` example and the server's browser page
// (Docs/Browser.md, "Chat").
import Foundation

/// One chat line: a signal of type ``signalType`` whose data is the JSON object `{"name": …, "text": …}`.
///
/// Peers that predate the format (or just send a string) chat in plain text: data that is not such an object is
/// read as a line of text from an unnamed sender, as is, so nothing anybody types is dropped. A sender may
/// announce its name once after connecting with a ``joinSignalType`` signal whose data is the name.
public struct ChatMessage: Equatable, Sendable {
    /// The signal type of chat lines.
    public static let signalType = "chat"
    /// The signal type of the optional announcement of a sender's name (data: the name as plain text).
    public static let joinSignalType = "chat-join"

    /// Who wrote it, as they call themselves; nil for a plain-text line.
    public var name: String?
    public var text: String

    public init(name: String?, text: String) {
        self.name = name
        self.text = text
    }

    /// The JSON object on the wire.
    private struct Wire: Codable {
        var name: String?
        var text: String

        init(name: String?, text: String) {
            self.name = name
            self.text = text
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            text = try container.decode(String.self, forKey: .text)
            name = try? container.decodeIfPresent(String.self, forKey: .name)
        }
    }

    /// Reads a chat signal's data: the JSON object `{"name","text"}` (a missing or non-string `name` is no name),
    /// or, for anything else (not JSON, not an object, no string `text`), the data itself as plain text.
    public init(signalData data: String) {
        if let wire = try? JSONDecoder().decode(Wire.self, from: Data(data.utf8)) {
            self.init(name: wire.name, text: wire.text)
        } else {
            self.init(name: nil, text: data)
        }
    }

    /// The signal data: `{"name","text"}` as JSON (keys sorted; `name` left out when there is none).
    public var signalData: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding two strings cannot fail; fall back to the text itself rather than lose it.
        guard let data = try? encoder.encode(Wire(name: name, text: text)) else { return text }
        return String(decoding: data, as: UTF8.self)
    }
}
