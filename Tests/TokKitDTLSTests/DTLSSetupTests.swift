import Testing
import TokKitDTLS

@Suite struct DTLSSetupTests {
    @Test func rolesFollowRFC5763() throws {
        #expect(try DTLSSetup.role(local: .actpass, remote: .active) == .server)
        #expect(try DTLSSetup.role(local: .actpass, remote: .passive) == .client)
        #expect(try DTLSSetup.role(local: .active, remote: .actpass) == .client)
        #expect(try DTLSSetup.role(local: .passive, remote: .actpass) == .server)
        #expect(try DTLSSetup.role(local: .active, remote: .passive) == .client)
        #expect(try DTLSSetup.role(local: .passive, remote: .active) == .server)
    }

    @Test(arguments: [(DTLSSetup.actpass, DTLSSetup.actpass), (.active, .active), (.passive, .passive)])
    func conflictingSetupsAreRejected(local: DTLSSetup, remote: DTLSSetup) {
        #expect(throws: DTLSError.incompatibleSetup) { try DTLSSetup.role(local: local, remote: remote) }
    }

    @Test func answersAreActiveForActpass() {
        #expect(DTLSSetup.answer(to: .actpass) == .active)
        #expect(DTLSSetup.answer(to: .active) == .passive)
        #expect(DTLSSetup.answer(to: .passive) == .active)
        #expect(DTLSSetup(rawValue: "actpass") == .actpass)
    }
}
