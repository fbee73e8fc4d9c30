import Testing
import TokKit

struct NetworkQualityTests {
    @Test func audioDegradesWithLossAndDelay() {
        let clean = NetworkQuality.audioScore(roundTripTime: .milliseconds(20), packetLoss: 0)
        let lossy = NetworkQuality.audioScore(roundTripTime: .milliseconds(20), packetLoss: 0.05)
        let far = NetworkQuality.audioScore(roundTripTime: .milliseconds(600), packetLoss: 0)
        let awful = NetworkQuality.audioScore(roundTripTime: .milliseconds(1_000), packetLoss: 0.5)
        #expect(clean > 4.2 && clean <= 4.5, "\(clean)")
        #expect(lossy < clean && lossy > 2.5, "\(lossy)")
        #expect(far < clean, "\(far)")
        #expect(awful >= 1 && awful < 2, "\(awful)")
    }

    @Test func videoFollowsTheBitrateOnALogScaleUpToWhatTheResolutionNeeds() {
        #expect(NetworkQuality.videoScore(bitrate: 20_000, width: 640, height: 480) == 0)
        #expect(NetworkQuality.videoScore(bitrate: 30_000, width: 640, height: 480) == 1)
        #expect(NetworkQuality.videoScore(bitrate: 600_000, width: 640, height: 480) == 5)
        #expect(NetworkQuality.videoScore(bitrate: 5_000_000, width: 640, height: 480) == 5)
        let mid = NetworkQuality.videoScore(bitrate: 150_000, width: 640, height: 480)
        #expect(mid > 2.5 && mid < 3.5, "\(mid)")
        // The same bitrate is worth more at a smaller picture.
        #expect(NetworkQuality.videoScore(bitrate: 150_000, width: 320, height: 240) > mid)
    }
}
