import Testing
import TokKitSDP

@Suite struct SDPDirectionTests {
    @Test func answerFollowsRFC3264() {
        #expect(SDPDirection.sendrecv.answer(wanting: .sendrecv) == .sendrecv)
        #expect(SDPDirection.sendonly.answer(wanting: .sendrecv) == .recvonly)
        #expect(SDPDirection.recvonly.answer(wanting: .sendrecv) == .sendonly)
        #expect(SDPDirection.recvonly.answer(wanting: .recvonly) == .inactive)
        #expect(SDPDirection.inactive.answer(wanting: .sendrecv) == .inactive)
        #expect(SDPDirection.sendrecv.answer(wanting: .recvonly) == .recvonly)
    }
}
