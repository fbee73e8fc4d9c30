import Testing
@testable import TokKitPeer

@Suite struct PendingNotificationsTests {
    @Test func keepsOneOfEachKindPerSectionTheLatestBitrateWinning() {
        var pending = PendingNotifications()
        pending.append(.video, .sendSideEstimatedBitrate(1_000))
        pending.append(.video, .pictureLoss)
        pending.append(.video, .sendSideEstimatedBitrate(2_000))
        pending.append(.audio, .pictureLoss)
        pending.append(.video, .pictureLoss)
        var seen: [String] = []
        pending.forEach { section, feedback in seen.append("\(section) \(feedback)") }
        #expect(seen == ["video sendSideEstimatedBitrate(2000)", "video pictureLoss", "audio pictureLoss"])
    }
}
