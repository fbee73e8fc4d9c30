import Testing
@testable import TokKitNetworkLab

/// Reading which coturn listener an allocation came through from coturn's verbose log, when two hosts allocate at
/// once and coturn's threads interleave their lines.
@Suite("TURNServer log") struct TURNServerLogTests {
    static let log = [
        "0: : IPv4. Local relay addr: 198.18.2.2:51183",  // the walled host's allocation, over TLS
        "0: : IPv4. Local relay addr: 198.18.2.2:60001",  // b's, over UDP, logged by another thread in between
        "0: : session 000000000000000001: new, realm=<lab>, username=<1:b>, lifetime=600",
        "0: : session 001000000000000001: new, realm=<lab>, username=<1:walled>, lifetime=600",
        "3: : session 001000000000000001: TCP socket closed remotely 198.18.3.2:50000",
        "3: : session 000000000000000001: closed (2nd stage), user <1:b> realm <lab> origin <>, local 198.18.2.2:3478, "
            + "remote 198.18.4.2:40000, reason: allocation timeout",
        "3: : session 001000000000000001: closed (2nd stage), user <1:walled> realm <lab> origin <>, "
            + "local 198.18.2.2:5349, remote 198.18.3.2:50000, reason: TCP connection closed by client (callback)",
    ]

    @Test func theAllocationsSessionIsTheNextOneCreatedByItsClient() {
        #expect(TURNServer.listenerPort(ofAllocation: "198.18.2.2:51183", client: "198.18.3.2", in: Self.log) == 5349)
        #expect(TURNServer.listenerPort(ofAllocation: "198.18.2.2:60001", client: "198.18.4.2", in: Self.log) == 3478)
        // Without the client, the next session created: b's here.
        #expect(TURNServer.listenerPort(ofAllocation: "198.18.2.2:51183", in: Self.log) == 3478)
        // Not before that session has closed; not for an address never logged.
        #expect(TURNServer.listenerPort(ofAllocation: "198.18.2.2:51183", client: "198.18.3.2",
                                        in: Array(Self.log.prefix(6))) == nil)
        #expect(TURNServer.listenerPort(ofAllocation: "198.18.2.2:1", client: "198.18.3.2", in: Self.log) == nil)
    }
}
