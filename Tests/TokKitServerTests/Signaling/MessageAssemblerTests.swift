import HummingbirdWebSocket
import NIOCore
import Testing
@testable import TokKitServer

/// Frames to messages: the size limit across fragments, UTF-8 validity, fragment order (issue 17, item 4).
@Suite struct MessageAssemblerTests {
    private func buffer(_ bytes: [UInt8]) -> ByteBuffer { ByteBuffer(bytes: bytes) }
    private func buffer(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    @Test func wholeAndFragmentedMessages() {
        var assembler = MessageAssembler(maxBytes: 10)
        #expect(assembler.push(.text, fin: true, data: buffer("abc")) == .text(Array("abc".utf8)))
        #expect(assembler.push(.text, fin: false, data: buffer("ab")) == .incomplete)
        #expect(assembler.push(.continuation, fin: false, data: buffer("")) == .incomplete)
        #expect(assembler.push(.continuation, fin: true, data: buffer("cd")) == .text(Array("abcd".utf8)))
        #expect(assembler.push(.binary, fin: false, data: buffer([0, 1])) == .incomplete)
        #expect(assembler.push(.continuation, fin: true, data: buffer([2])) == .binary)
        #expect(assembler.push(.text, fin: true, data: buffer("0123456789")) == .text(Array("0123456789".utf8)))
    }

    @Test func theLimitHoldsAcrossFragments() {
        var single = MessageAssembler(maxBytes: 10)
        #expect(single.push(.text, fin: true, data: buffer("0123456789a")) == .close(.messageTooBig))
        var exact = MessageAssembler(maxBytes: 10)
        #expect(exact.push(.text, fin: false, data: buffer("01234")) == .incomplete)
        #expect(exact.push(.continuation, fin: true, data: buffer("56789")) == .text(Array("0123456789".utf8)))
        var over = MessageAssembler(maxBytes: 10)
        #expect(over.push(.text, fin: false, data: buffer("01234")) == .incomplete)
        #expect(over.push(.continuation, fin: false, data: buffer("56789")) == .incomplete)
        #expect(over.push(.continuation, fin: true, data: buffer("a")) == .close(.messageTooBig))
        var binary = MessageAssembler(maxBytes: 10)
        #expect(binary.push(.binary, fin: false, data: buffer([UInt8](repeating: 0, count: 10))) == .incomplete)
        #expect(binary.push(.continuation, fin: false, data: buffer([0])) == .close(.messageTooBig))
    }

    @Test func textMustBeValidUTF8() {
        var assembler = MessageAssembler(maxBytes: 100)
        #expect(assembler.push(.text, fin: true, data: buffer("é€😀")) == .text(Array("é€😀".utf8)))
        // A character split between fragments is fine; the message as a whole is checked.
        let euro = Array("€".utf8)
        #expect(assembler.push(.text, fin: false, data: buffer(Array(euro[..<1]))) == .incomplete)
        #expect(assembler.push(.continuation, fin: true, data: buffer(Array(euro[1...]))) == .text(euro))
        for invalid: [UInt8] in [[0xFF], [0xC3], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0x7B, 0xF4, 0x90, 0x80, 0x80, 0x7D]] {
            var fresh = MessageAssembler(maxBytes: 100)
            #expect(fresh.push(.text, fin: true, data: buffer(invalid)) == .close(.invalidPayload), "\(invalid)")
        }
        var truncated = MessageAssembler(maxBytes: 100)
        #expect(truncated.push(.text, fin: false, data: buffer(Array(euro[..<2]))) == .incomplete)
        #expect(truncated.push(.continuation, fin: true, data: buffer("x")) == .close(.invalidPayload))
        var binary = MessageAssembler(maxBytes: 100)
        #expect(binary.push(.binary, fin: true, data: buffer([0xFF])) == .binary, "binary is not text")
    }

    @Test func fragmentsOutOfOrderAreAProtocolError() {
        var orphan = MessageAssembler(maxBytes: 100)
        #expect(orphan.push(.continuation, fin: true, data: buffer("x")) == .close(.protocolError))
        var interleaved = MessageAssembler(maxBytes: 100)
        #expect(interleaved.push(.text, fin: false, data: buffer("x")) == .incomplete)
        #expect(interleaved.push(.text, fin: true, data: buffer("y")) == .close(.protocolError))
    }
}
