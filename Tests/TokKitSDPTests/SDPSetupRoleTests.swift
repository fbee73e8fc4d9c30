import Testing
import TokKitSDP

@Suite struct SDPSetupRoleTests {
    @Test func setupRoleAnswers() throws {
        #expect(try SDPSetupRole.actpass.answer() == .active)
        #expect(try SDPSetupRole.actpass.answer(preferring: .passive) == .passive)
        #expect(try SDPSetupRole.active.answer() == .passive)
        #expect(try SDPSetupRole.passive.answer() == .active)
        #expect(throws: SDPError.unsupportedSetupRole("holdconn")) { try SDPSetupRole.holdconn.answer() }
        #expect(throws: SDPError.unsupportedSetupRole("actpass")) { try SDPSetupRole.actpass.answer(preferring: .actpass) }
    }
}
