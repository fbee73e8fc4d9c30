import Testing
import TokKitSDP

@Suite struct SDPCandidateTests {
    @Test func parsesTrickledAndRelayCandidates() throws {
        let srflx = try SDPCandidate(parsing:
            "candidate:842163049 1 udp 1677729535 203.0.113.7 50000 typ srflx raddr 192.0.2.2 rport 46003 generation 0 ufrag WFjZ network-cost 999")
        #expect(srflx.kind == .serverReflexive)
        #expect(srflx.relatedAddress == "192.0.2.2" && srflx.relatedPort == 46003)
        #expect(srflx.extensionValue("ufrag") == "WFjZ")
        #expect(srflx.description == "candidate:842163049 1 udp 1677729535 203.0.113.7 50000 typ srflx raddr 192.0.2.2 rport 46003 generation 0 ufrag WFjZ network-cost 999")
        let mdns = try SDPCandidate(parsing: "a=candidate:1 1 UDP 2122260223 4e5a2c1b-6f7e-4a3b-9c8d-1e2f3a4b5c6d.local 54321 typ host")
        #expect(mdns.address.hasSuffix(".local") && mdns.transport == "UDP")
        let relay = try SDPCandidate(parsing: "candidate:a+b/c 2 udp 16777215 198.51.100.1 3478 typ relay raddr 0.0.0.0 rport 0")
        #expect(relay.kind == .relayed && relay.component == 2 && relay.foundation == "a+b/c")
        #expect(try SDPCandidate(parsing: relay.description) == relay)
    }

    @Test func rejectsMalformedCandidates() {
        let bad = [
            "", "candidate:", "candidate:1 1 udp 1 1.2.3.4 5 typ",  // too few fields
            "candidate:1 0 udp 1 1.2.3.4 5 typ host",  // component 0
            "candidate:1 1 udp 99999999999 1.2.3.4 5 typ host",  // priority above 32 bits
            "candidate:1 1 udp 1 1.2.3.4 70000 typ host",  // port
            "candidate:1 1 udp 1 1.2.3.4 5 type host",  // not "typ"
            "candidate:1 1 udp 1 1.2.3.4 5 typ host generation",  // extension without value
            "candidate:1 1 udp 1 1.2.3.4 5 typ srflx raddr 1.2.3.4 rport x",
            "candidate:f*o 1 udp 1 1.2.3.4 5 typ host",  // foundation charset
            "candidate:\(String(repeating: "1", count: 33)) 1 udp 1 1.2.3.4 5 typ host",
            "candidate:1 1 udp 1 <script> 5 typ host",
            "candidate:1 1 udp 1 1.2.3.4 5 typ host " + String(repeating: "x ", count: 600),
        ]
        for text in bad {
            #expect(throws: SDPError.self, "\(text.prefix(60))") { try SDPCandidate(parsing: text) }
        }
    }
}
