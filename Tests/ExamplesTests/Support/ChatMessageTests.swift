import ExampleSupport
import Testing

/// The chat format of `signaling-chat` and the browser page (Docs/Browser.md, "Chat").
@Suite struct ChatMessageTests {
    @Test func aLineGoesOutAsTheJSONObjectAndComesBack() {
        let message = ChatMessage(name: "Alice", text: "hi \"you\" / ünïcode")
        #expect(message.signalData == #"{"name":"Alice","text":"hi \"you\" / ünïcode"}"#)
        #expect(ChatMessage(signalData: message.signalData) == message)
    }

    /// What the browser page sends (`JSON.stringify({ name, text })`) reads the same.
    @Test func thePagesLinesAreRead() {
        #expect(ChatMessage(signalData: #"{"name":"Page","text":"hello"}"#) == ChatMessage(name: "Page", text: "hello"))
        #expect(ChatMessage(signalData: #" {"text":"no name"} "#) == ChatMessage(name: nil, text: "no name"))
        #expect(ChatMessage(signalData: #"{"name":42,"text":"odd name"}"#) == ChatMessage(name: nil, text: "odd name"))
    }

    /// Issue 17: plain text from an older peer was dropped; anything that is not the object is a line of text.
    @Test(arguments: ["hello", "", "42", "\"quoted\"", "[1,2]", "null", #"{"name":"x"}"#, #"{"text":7}"#, "{broken"])
    func anythingElseIsPlainText(data: String) {
        #expect(ChatMessage(signalData: data) == ChatMessage(name: nil, text: data))
    }
}
