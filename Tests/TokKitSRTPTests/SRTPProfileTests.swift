import Testing
import TokKitSRTP

@Suite struct SRTPProfileTests {
    @Test func lengthsFollowTheRFCs() {
        #expect(SRTPProfile.aes128CmSha1_80.masterKeyLength == 30)  // RFC 5764 §4.1.2
        #expect(SRTPProfile.aeadAes128Gcm.masterKeyLength == 28)    // RFC 7714 §12
        #expect(SRTPProfile.aes128CmSha1_80.rtcpOverhead == 14)
        #expect(SRTPProfile.aeadAes128Gcm.rtcpOverhead == 20)
    }

    @Test func identifiersRoundTrip() {
        for profile in SRTPProfile.allCases {
            #expect(SRTPProfile(protectionProfileID: profile.protectionProfileID) == profile)
        }
        #expect(SRTPProfile(protectionProfileID: 0x0002) == nil)
    }
}
