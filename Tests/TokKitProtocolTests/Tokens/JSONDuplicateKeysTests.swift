import Testing
import TokKitProtocol

/// The duplicate-key finder behind token verification (issue 17, item 7).
@Suite struct JSONDuplicateKeysTests {
    private func first(_ json: String) -> String? { JSONDuplicateKeys.first(in: Array(json.utf8)) }

    @Test func distinctKeysPass() {
        for json in [#"{}"#, #"{"a":1,"b":2}"#, #"[{"a":1},{"a":2}]"#, #"{"a":{"a":{"a":1}},"b":[{"a":1,"b":2}]}"#,
                     #"{"a":"a","b":"\"a\":1,\"a\":2"}"#, #"{"a\"":1,"a":2}"#, #"{"k":1,"\u00e9":2,"e\u0301x":3}"#,
                     "not json", "", #"{"a":"unterminated"#] {
            #expect(first(json) == nil, "\(json)")
        }
    }

    @Test func aKeyTwiceInOneObjectIsFoundAtAnyDepth() {
        #expect(first(#"{"role":"subscriber","role":"moderator"}"#) == "role")
        #expect(first(#"{"a":1,"b":{"c":1,"d":[1,{"e":1,"e":2}]}}"#) == "e")
        #expect(first(#"[[{"x":1}],{"y":[],"y":{}}]"#) == "y")
        #expect(first(#" { "a" : 1 , "a" : 2 } "#) == "a")
        // The same key spelled with escapes, a surrogate pair, or a canonically equivalent sequence.
        #expect(first(#"{"role":"a","r\u006fle":"b"}"#) == "role")
        #expect(first(#"{"\ud83d\ude00":1,"😀":2}"#) == "😀")
        #expect(first(#"{"\u00e9":1,"e\u0301":2}"#) == "é")
        #expect(first(#"{"a\/b":1,"a/b":2}"#) == "a/b")
    }

    @Test func deepNestingNeitherRecursesNorTraps() {
        let depth = 200_000
        let deep = String(repeating: "[", count: depth) + #"{"a":1,"a":2}"# + String(repeating: "]", count: depth)
        #expect(first(deep) == "a")
        #expect(first(String(repeating: "{\"a\":", count: depth)) == nil)
        #expect(first(String(repeating: "}]", count: 1_000) + #"{"b":1,"b":1}"#) == "b")
    }
}
